/**
 * Facts-first citation grounding of Answer or In-Depth statements (§7.5 Target, decision 9): pairs
 * the chart alone settles are decided without a model; folded verdicts from the reviewer's reply are
 * used where it gave them; everything else goes to the checker in sequential batches of at most four.
 * The verdict of each pair is derived by the hub from the checker's fact list, never by the model.
 */
import {
  GROUNDING_RESPONSE_FORMAT,
  applyGroundingChecks,
  checkOf,
  deriveSupport,
  factCheckPrompt,
  groundingPairs,
  literalTableFact,
  parseFactReply,
  runFactChecks,
  sourceLines,
  summariseSupport,
  temporalPass,
  type BatchRecord,
  type FactCheckIO,
  type FactCheckItem,
  type GroundingCheck,
  type GroundingPair,
} from '../checks/grounding';
import { stageMessages, type PromptLayout } from '../context';
import type { ChatRequest } from '../llm';
import { callChecker, checkerSampling, fitsWindow } from './checker';
import { promptLayout } from './fit';
import type { Reference } from '../answer';
import { recordStep } from './steps';
import type { EngineDeps, TurnState } from './types';

/**
 * At most this many statements of one Answer or In-Depth go to the checker (twelve batches of four).
 * A writer bounded by its output reserve stays far below it; a runaway reply does not turn into
 * thousands of sequential checker calls — the statements past it are honestly `unchecked`.
 */
export const MAX_CHECKED_STATEMENTS = 48;

export interface CheckedPair {
  pair: GroundingPair;
  check: GroundingCheck;
}

/** The agreement check of a plan without a grounding model falls back to its reviewer, then the second writer. */
function factCheckModel(turn: TurnState): string {
  return turn.profile.models.grounding ?? turn.profile.models.review ?? turn.profile.models.second!;
}

/** The checker request for one batch: after the shared context in the model's layout (decision 8), or on its own (null). */
export function factCheckRequest(turn: TurnState, deps: EngineDeps, instructions: string, items: readonly FactCheckItem[], context: PromptLayout | null): ChatRequest {
  const text = `${instructions.trim()}\n\n${factCheckPrompt(items)}`;
  const messages = context ? stageMessages(turn.context.contextMessage, { instructions: text, history: [], question: turn.context.question }, context) : [{ role: 'user' as const, content: text }];
  const model = factCheckModel(turn);
  return { model, messages, ...checkerSampling(turn, deps, 'grounding'), response_format: GROUNDING_RESPONSE_FORMAT };
}

/**
 * Batch I/O for `runFactChecks`: a batch is sent after the shared context message when that fits the
 * window (the router's prompt cache already holds it), else on its own (its pairs carry their sources).
 */
export function factCheckIO(turn: TurnState, deps: EngineDeps, stage: string, instructions: string): FactCheckIO {
  // `ask` follows `fits` for the same batch: the request chosen there is reused, not built and counted again.
  const chosen = new WeakMap<readonly FactCheckItem[], ChatRequest | null>();
  const pick = async (items: readonly FactCheckItem[]): Promise<ChatRequest | null> => {
    if (chosen.has(items)) return chosen.get(items)!;
    const shared = factCheckRequest(turn, deps, instructions, items, await promptLayout(turn, deps, factCheckModel(turn)));
    let body: ChatRequest | null = shared;
    if (!(await fitsWindow(turn, deps, shared))) {
      const alone = factCheckRequest(turn, deps, instructions, items, null);
      body = (await fitsWindow(turn, deps, alone)) ? alone : null;
    }
    chosen.set(items, body);
    return body;
  };
  return {
    fits: async (items) => (await pick(items)) !== null,
    ask: async (items) => {
      const body = await pick(items);
      if (!body) throw new Error('batch does not fit the checker window');
      const outcome = await callChecker(turn, deps, stage, body);
      if (!outcome.ok) throw new Error(outcome.error);
      return outcome.result.content;
    },
  };
}

function recordOf(turn: TurnState, index: number): { date: string | null; text: string } | null {
  const record = turn.context.ledger?.records[index - 1];
  return record ? { date: record.date, text: record.text } : null;
}

function sourceTextOf(refs: readonly Reference[]): (index: number) => string | null {
  const byIndex = new Map(refs.map((r) => [r.index, r.sourceText ?? null]));
  return (index) => byIndex.get(index) ?? null;
}

/** Checks the reviewer already gave (folded grounding), matched to pairs by claim and source set. */
function foldedChecks(turn: TurnState, pairs: readonly GroundingPair[]): Map<number, GroundingCheck> {
  const out = new Map<number, GroundingCheck>();
  const review = turn.review.answer;
  if (!review || review.pairs.length === 0 || review.foldedPairs === undefined || review.foldedPairs === null) return out;
  const facts = parseFactReply(JSON.stringify({ pairs: review.foldedPairs }), review.pairs.length);
  if (!facts) return out;
  const key = (p: { claim: string; location: string; path: string; sourceIndices: readonly number[] }) => `${p.location}|${p.path}|${p.claim}|${p.sourceIndices.join(',')}`;
  const byKey = new Map(review.pairs.map((p, i) => [key(p), facts[i]]));
  pairs.forEach((pair, i) => {
    const given = byKey.get(key(pair));
    if (given) out.set(i, checkOf(pair, { support: deriveSupport(given), facts: given }, 'folded'));
  });
  return out;
}

export async function groundClaims(
  turn: TurnState,
  deps: EngineDeps,
  refs: readonly Reference[],
  opts: { locations: readonly string[]; stage: string; useFolded: boolean; passingChecks: ReadonlyArray<{ claim: string; source_indices: number[] }> },
): Promise<{ references: Reference[]; checked: CheckedPair[]; batches: BatchRecord[] }> {
  const pairs = groundingPairs(refs, opts.locations);
  const decided = new Map<number, GroundingCheck>();
  pairs.forEach((pair, i) => {
    if (pair.sourceIndices.length === 1 && literalTableFact(pair, recordOf(turn, pair.sourceIndices[0]))) {
      decided.set(i, checkOf(pair, { support: 'supported', facts: null }, 'deterministic_exact'));
    } else if (temporalPass(pair, opts.passingChecks)) {
      decided.set(i, checkOf(pair, { support: 'supported', facts: null }, 'deterministic_temporal'));
    }
  });
  if (opts.useFolded) for (const [i, check] of foldedChecks(turn, pairs)) if (!decided.has(i)) decided.set(i, check);

  const undecided = pairs.map((_, i) => i).filter((i) => !decided.has(i));
  const open = undecided.slice(0, MAX_CHECKED_STATEMENTS);
  const overLimit = undecided.slice(MAX_CHECKED_STATEMENTS);
  for (const i of overLimit) decided.set(i, checkOf(pairs[i], { support: 'unchecked', facts: null }, 'none'));
  const lookup = sourceTextOf(refs);
  const items = open.map((i) => ({ statement: pairs[i].claim, sources: sourceLines(pairs[i].sourceIndices, lookup) }));
  const instructions = deps.catalog.readPrompt(turn.profile.prompts.grounding!);
  const { results, batches } = await runFactChecks(items, factCheckIO(turn, deps, opts.stage, instructions), { signal: turn.signal });
  open.forEach((pairIndex, k) => decided.set(pairIndex, checkOf(pairs[pairIndex], results[k], 'model')));

  const checked = pairs.map((pair, i) => ({ pair, check: decided.get(i)! }));
  recordStep(turn, {
    role: 'grounding',
    stage: opts.stage,
    locations: [...opts.locations],
    pairs: pairs.length,
    deterministic: checked.filter((c) => c.check.method.startsWith('deterministic')).length,
    folded: checked.filter((c) => c.check.method === 'folded').length,
    over_limit: overLimit.length,
    batches,
    support: summariseSupport(checked.map((c) => c.check)),
  });
  return { references: applyGroundingChecks(refs, checked), checked, batches };
}
