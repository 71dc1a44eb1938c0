/**
 * The single writer of each turn slice (ARCHITECTURE "growing the turn"): the hub's source is read
 * with the TypeScript checker, and every write — an assignment, `++`/`--`, `delete`, a mutating call
 * (`push`, `splice`, `set`, …) or `Object.assign` — whose target lies inside a slice (found by the
 * slice's type, so an alias such as `const part = turn.drugSafety` counts too) must sit in that
 * slice's owner module, and so must a cast of a slice (which could hide a later write). Trace steps are appended by steps.ts only and read by the trace record only.
 */
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/** Slice (its property on the turn) → the type names it is written through → its one owner module. */
const SLICES: Record<string, { types: string[]; owner: string }> = {
  context: { types: ['ContextSlice'], owner: 'server/engine/slices/context.ts' },
  answer: { types: ['AnswerSlice'], owner: 'server/engine/slices/answer.ts' },
  validation: { types: ['ValidationSlice'], owner: 'server/engine/slices/validation.ts' },
  review: { types: ['ReviewSlice'], owner: 'server/engine/slices/review.ts' },
  accounting: { types: ['AccountingSlice', 'AccountingWrites'], owner: 'server/engine/budget.ts' },
  outcome: { types: ['OutcomeSlice'], owner: 'server/engine/slices/outcome.ts' },
  drugSafety: { types: ['DrugSafetyTurn'], owner: 'server/engine/stages/drug-safety.ts' },
  gather: { types: ['GatherTurn'], owner: 'server/engine/gather/loop.ts' },
  fit: { types: ['FitTurn'], owner: 'server/engine/fit.ts' },
  steps: { types: [], owner: 'server/engine/steps.ts' },
};
/** Who may read the steps back: nobody but the trace record that writes them out. */
const STEP_READERS = new Set(['server/engine/steps.ts', 'server/trace/turn-trace.ts']);

const MUTATORS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'set', 'add', 'delete', 'clear']);
const TURN_TYPES = new Set(['TurnState', 'TurnInput', 'HasSteps']);
const SLICE_OF_TYPE = new Map(Object.entries(SLICES).flatMap(([slice, s]) => s.types.map((t) => [t, slice] as const)));

interface Write {
  file: string;
  line: number;
  slice: string;
  text: string;
}

function typeNames(type: ts.Type, depth = 0): string[] {
  if (depth > 3) return [];
  const names = [type.aliasSymbol?.name, type.getSymbol()?.name].filter((n): n is string => !!n);
  for (const arg of type.aliasTypeArguments ?? []) names.push(...typeNames(arg, depth + 1));
  if (type.isUnionOrIntersection()) for (const t of type.types) names.push(...typeNames(t, depth + 1));
  return names;
}

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

/** The slice a write target lies in: the first object on its access chain whose type is a slice (or the turn's slice property). */
function sliceOf(checker: ts.TypeChecker, target: ts.Expression): string | 'turn' | null {
  let e = unwrap(target);
  for (;;) {
    if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
      const object = unwrap(e.expression);
      const objectTypes = typeNames(checker.getTypeAtLocation(object));
      if (ts.isPropertyAccessExpression(e) && objectTypes.some((n) => TURN_TYPES.has(n))) return e.name.text in SLICES ? e.name.text : 'turn';
      const slice = objectTypes.map((n) => SLICE_OF_TYPE.get(n)).find((s) => s !== undefined);
      if (slice) return slice;
      e = object;
      continue;
    }
    const own = typeNames(checker.getTypeAtLocation(e));
    if (own.some((n) => TURN_TYPES.has(n))) return 'turn';
    return own.map((n) => SLICE_OF_TYPE.get(n)).find((s) => s !== undefined) ?? null;
  }
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

function writeTargets(node: ts.Node): ts.Expression[] {
  if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) return [node.left];
  if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) return [node.operand];
  if (ts.isDeleteExpression(node)) return [node.expression];
  if (ts.isCallExpression(node)) {
    const callee = unwrap(node.expression);
    if (ts.isPropertyAccessExpression(callee)) {
      if (callee.name.text === 'assign' && ts.isIdentifier(callee.expression) && callee.expression.text === 'Object' && node.arguments[0]) return [node.arguments[0]];
      if (MUTATORS.has(callee.name.text)) return [callee.expression];
    }
  }
  return [];
}

/** Every slice write and every read of the turn's steps in the given source files. */
function scanTurnWrites(fileNames: readonly string[], options: ts.CompilerOptions): { writes: Write[]; stepReads: Write[] } {
  const program = ts.createProgram(fileNames, options);
  const checker = program.getTypeChecker();
  const writes: Write[] = [];
  const stepReads: Write[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!fileNames.includes(sf.fileName)) continue;
    const file = path.relative(ROOT, sf.fileName).split(path.sep).join('/');
    const at = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
    const visit = (node: ts.Node): void => {
      for (const target of writeTargets(node)) {
        // Writing the turn's own fields (`turn.x = …`, `Object.assign(turn, …)`) is a stray write whatever x is.
        const slice = sliceOf(checker, target);
        if (slice) writes.push({ file, line: at(node), slice, text: node.getText(sf).slice(0, 120) });
      }
      // A cast of a slice (`turn.answer as {…}`) would hide a later write from the checks above: owners only.
      if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
        const slice = sliceOf(checker, node.expression);
        if (slice) writes.push({ file, line: at(node), slice, text: node.getText(sf).slice(0, 120) });
      }
      if (ts.isPropertyAccessExpression(node) && node.name.text === 'steps' && typeNames(checker.getTypeAtLocation(node.expression)).some((n) => TURN_TYPES.has(n))) {
        stepReads.push({ file, line: at(node), slice: 'steps', text: node.parent.getText(sf).slice(0, 120) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { writes, stepReads };
}

function serverSources(): { fileNames: string[]; options: ts.CompilerOptions } {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json could not be read');
  const server = `${path.join(ROOT, 'server')}${path.sep}`;
  return { fileNames: config.fileNames.filter((f) => path.normalize(f).startsWith(server)), options: { ...config.options, noEmit: true } };
}

describe('turn slices', () => {
  let scan: ReturnType<typeof scanTurnWrites>;
  beforeAll(() => {
    const { fileNames, options } = serverSources();
    scan = scanTurnWrites(fileNames, options);
  }, 120_000);

  test('each slice is written only by its owner module', () => {
    const stray = scan.writes.filter((w) => w.slice === 'turn' || SLICES[w.slice].owner !== w.file);
    expect(stray.map((w) => `${w.file}:${w.line} writes ${w.slice}: ${w.text}`)).toEqual([]);
  });

  test('the scan sees every owner write its slice (it is not blind)', () => {
    const written = new Set(scan.writes.map((w) => w.slice));
    expect([...written].sort()).toEqual(Object.keys(SLICES).sort());
  });

  test('trace steps are read back only by the trace record', () => {
    const readers = scan.stepReads.filter((r) => !STEP_READERS.has(r.file));
    expect(readers.map((r) => `${r.file}:${r.line}: ${r.text}`)).toEqual([]);
  });
});
