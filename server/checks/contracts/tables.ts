/**
 * Table contract of the product Answer (§7.2): a `chart_answer` block ships only when it is a
 * well-formed table; one common small-model failure (cells written flat, one per row) is regrouped
 * when that is provably safe, and anything else is withheld with a blocking `table_contract` issue.
 */
import type { TableBlock, TableCell } from '../../answer';
import type { ContractIssue } from './issue';

export interface TableCheck {
  block: TableBlock | null;
  repaired: boolean;
  issue: ContractIssue | null;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why `v` is not exactly `{text: string, refs: int[]}`, or null when it is. */
function cellProblem(v: unknown): string | null {
  if (!isObj(v)) return 'is not an object';
  const keys = Object.keys(v);
  if (keys.length !== 2 || !keys.includes('text') || !keys.includes('refs')) return 'must hold exactly text and refs';
  if (typeof v.text !== 'string') return 'text is not a string';
  if (!Array.isArray(v.refs) || !v.refs.every((r) => Number.isSafeInteger(r))) return 'refs is not a list of integers';
  return null;
}

function copyCell(v: unknown): TableCell {
  const c = v as TableCell;
  return { text: c.text, refs: [...c.refs] };
}

/** Every positive integer ref anywhere in the rows, so a withheld table still names its sources. */
function anyRefs(rows: unknown): number[] {
  const out = new Set<number>();
  if (!Array.isArray(rows)) return [];
  for (const row of rows) {
    if (!isObj(row) || !isObj(row.cells)) continue;
    for (const cell of Object.values(row.cells)) {
      if (!isObj(cell) || !Array.isArray(cell.refs)) continue;
      for (const r of cell.refs) if (Number.isSafeInteger(r) && (r as number) > 0) out.add(r as number);
    }
  }
  return [...out];
}

/** The column list, or why it is unusable (non-empty, unique non-blank string keys, string labels). */
function readColumns(v: unknown): Array<{ key: string; label: string }> | string {
  if (!Array.isArray(v) || v.length === 0) return 'has no columns';
  const seen = new Set<string>();
  const out: Array<{ key: string; label: string }> = [];
  for (const [i, c] of v.entries()) {
    if (!isObj(c) || typeof c.key !== 'string' || typeof c.label !== 'string') return `column ${i + 1} is not {key, label}`;
    if (c.key.trim() === '') return `column ${i + 1} has a blank key`;
    if (seen.has(c.key)) return `column key "${c.key}" is repeated`;
    seen.add(c.key);
    out.push({ key: c.key, label: c.label });
  }
  return out;
}

/** Why a row's cells do not match the columns exactly, or null. */
function rowProblem(cells: Obj, keys: string[]): string | null {
  const got = Object.keys(cells);
  if (got.length !== keys.length || !keys.every((k) => Object.hasOwn(cells, k))) {
    return `cells (${got.join(', ') || 'none'}) do not match the columns (${keys.join(', ')})`;
  }
  for (const k of keys) {
    const p = cellProblem(cells[k]);
    if (p) return `cell "${k}" ${p}`;
  }
  return null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// A weight is a number with a mass unit (kg, kgs, lb, lbs); `kg/m2` (BMI) is not a weight.
const WEIGHT = /^\d+(?:\.\d+)?\s*(?:kg|lb)s?(?![\p{L}\p{N}/])/iu;

function isCalendarDate(text: string): boolean {
  const m = ISO_DATE.exec(text.trim());
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/**
 * The value a column must hold for a regrouped cell to be trusted. Substring matching on purpose:
 * a false "date"/"weight" match only makes the repair stricter, never looser.
 */
function columnRule(col: { key: string; label: string }): ((text: string) => boolean) | null {
  const name = `${col.key} ${col.label}`.toLowerCase();
  const rules: Array<(t: string) => boolean> = [];
  if (name.includes('date')) rules.push(isCalendarDate);
  if (name.includes('weight')) rules.push((t) => WEIGHT.test(t.trim()));
  return rules.length ? (t) => rules.every((r) => r(t)) : null;
}

function sameSet(a: number[], b: number[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

/**
 * Regroups flat one-cell rows into full rows, or says why it would be a guess. Each flat cell must
 * already carry the key of the column its position implies, so a reversed or shuffled order (which
 * a free-text column could not reveal by its content) is never silently re-labelled.
 */
function regroup(columns: Array<{ key: string; label: string }>, rows: Obj[]): Array<{ cells: Record<string, TableCell> }> | string {
  const n = columns.length;
  if (!rows.every((r) => isObj(r.cells) && Object.keys(r.cells).length === 1)) return 'rows are not one flat cell each';
  if (rows.length % n !== 0) return `${rows.length} flat cells do not fill ${n} columns`;
  const rules = columns.map(columnRule);
  const out: Array<{ cells: Record<string, TableCell> }> = [];
  for (let g = 0; g < rows.length / n; g++) {
    const entries: Array<[string, TableCell]> = [];
    for (let j = 0; j < n; j++) {
      const flat = rows[g * n + j].cells as Obj;
      const [key] = Object.keys(flat);
      const col = columns[j];
      if (key !== col.key) return `flat cell ${g * n + j + 1} is "${key}" where column "${col.key}" is expected`;
      const p = cellProblem(flat[key]);
      if (p) return `flat cell ${g * n + j + 1} ${p}`;
      const cell = copyCell(flat[key]);
      const rule = rules[j];
      if (rule && !rule(cell.text)) return `flat cell ${g * n + j + 1} ("${cell.text}") does not fit column "${col.label || col.key}"`;
      entries.push([col.key, cell]);
    }
    // fromEntries, not assignment: a column keyed `__proto__` must stay a cell, not become the prototype.
    const cells: Record<string, TableCell> = Object.fromEntries(entries);
    const refSets = Object.values(cells).map((c) => c.refs);
    if (refSets[0].length === 0 || !refSets.every((r) => sameSet(r, refSets[0]))) {
      return `regrouped row ${g + 1} does not share one non-empty refs set`;
    }
    out.push({ cells });
  }
  return out;
}

function withheld(index: number, raw: unknown, why: string): TableCheck {
  return {
    block: null,
    repaired: false,
    issue: {
      id: 'table_contract',
      status: 'fail',
      severity: 'block',
      reason: `Table blocks[${index}] was withheld because it breaks the table contract: ${why}.`,
      source_indices: isObj(raw) ? anyRefs(raw.rows) : [],
    },
  };
}

/** Validates one Answer block (§7.2); returns a fresh plain copy, a safe repair, or a withheld issue. */
export function checkTable(block: unknown, index: number): TableCheck {
  if (!isObj(block)) return withheld(index, block, 'it is not an object');
  if (block.kind !== 'table') return withheld(index, block, 'kind is not "table"');
  if (typeof block.title !== 'string') return withheld(index, block, 'title is not a string');
  const columns = readColumns(block.columns);
  if (typeof columns === 'string') return withheld(index, block, `it ${columns}`);
  if (!Array.isArray(block.rows) || block.rows.length === 0) return withheld(index, block, 'it has no rows');
  const rows = block.rows as unknown[];
  const badRow = rows.findIndex((r) => !isObj(r) || !isObj(r.cells));
  if (badRow >= 0) return withheld(index, block, `row ${badRow + 1} has no cells object`);

  const keys = columns.map((c) => c.key);
  const header = { kind: 'table' as const, title: block.title, columns };
  let problem: string | null = null;
  for (const [i, r] of (rows as Obj[]).entries()) {
    const p = rowProblem(r.cells as Obj, keys);
    if (p) {
      problem = `row ${i + 1} ${p}`;
      break;
    }
  }
  if (problem === null) {
    const clean = (rows as Obj[]).map((r) => ({
      cells: Object.fromEntries(keys.map((k) => [k, copyCell((r.cells as Obj)[k])])),
    }));
    return { block: { ...header, rows: clean }, repaired: false, issue: null };
  }
  const regrouped = regroup(columns, rows as Obj[]);
  if (typeof regrouped === 'string') return withheld(index, block, `${problem}, and it cannot be safely regrouped (${regrouped})`);
  return { block: { ...header, rows: regrouped }, repaired: true, issue: null };
}
