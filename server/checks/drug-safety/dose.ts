/**
 * Clause-local dose attribution (§9.4): which `<n> mg` of an Answer is a dose of which drug. The
 * lower-cased Answer is split into clauses on `; ! ? newline` and on `.` not followed by a digit (so
 * `2.5 mg` survives); in a clause naming the drug, a dose counts when no limit cue (`maximum`, `up to`,
 * `do not exceed`, …) stands within 24 characters before it and its nearest alias (within 120
 * characters) is this drug's. The clause's own frequency gives doses per day, so a frequency never
 * bleeds into another sentence.
 */
import { aliasMatches } from './matching';
import type { DrugEntry } from './types';

export interface StatedDose {
  /** The stated amount in mg. */
  mg: number;
  /** Doses per day from the clause (1 when it states none). */
  perDay: number;
  /** The amount was stated per day (`2400 mg/day`), not per dose. */
  dailyAmount: boolean;
}

const LIMIT_WINDOW = 24;
const ALIAS_WINDOW = 120;
// One pass per cue word; the window is at most 24 characters, so no pattern here reads long text.
const LIMIT_CUE = /\b(?:max|maximum|up to|no more than|not exceed|not to exceed|exceed|limit|ceiling|less than|under|at most|below|cap)\b/;
// Numbers are read by a hand scan (numberAt): a digit-run pattern tried at every position is quadratic.
const DOSE_UNIT = /^\s*(?:mg|milligrams?)\b/;
const PER_KG = /^\s*(?:\/\s*kg|per\s+kg)\b/;
const PER_DAY = /^\s*(?:\/\s*day|\/\s*d\b|per\s+day|a\s+day|daily)\b/;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Clauses of lower-cased text: split on `;!?` and line breaks, and on `.` not followed by a digit. */
export function splitClauses(lower: string): Array<{ text: string; start: number }> {
  const out: Array<{ text: string; start: number }> = [];
  let start = 0;
  for (let i = 0; i <= lower.length; i++) {
    const c = lower[i];
    const split = i === lower.length || c === ';' || c === '!' || c === '?' || c === '\n' || c === '\r' || (c === '.' && !isDigit(lower[i + 1]));
    if (!split) continue;
    if (i > start) out.push({ text: lower.slice(start, i), start });
    start = i + 1;
  }
  return out;
}

/** Doses per day stated in a clause (§9.4): every N hours / qNh / N-hourly, qid, tid, bid, daily; else 1. */
export function frequencyPerDay(clause: string): number {
  const every = /\bevery\s+(\d{1,2})(?:\s*(?:-|to)\s*\d{1,2})?\s*(?:hours?|hrs?|h)\b/.exec(clause) ?? /\bq\s?(\d{1,2})\s?h\b/.exec(clause) ?? /\b(\d{1,2})\s?-?\s?hourly\b/.exec(clause);
  if (every) {
    const hours = Number(every[1]);
    if (hours > 0) return Math.max(1, Math.round(24 / hours));
  }
  if (/\b(?:qid|q\.i\.d|four times)\b/.test(clause)) return 4;
  if (/\b(?:tid|t\.i\.d|three times)\b/.test(clause)) return 3;
  if (/\b(?:bid|b\.i\.d|twice)\b/.test(clause)) return 2;
  return 1;
}

/** The number starting at `i` (`600`, `2.5`, `1,200`) and where it ends; null when none starts there. */
function numberAt(text: string, i: number): { value: number; end: number } | null {
  if (!isDigit(text[i]) || isDigit(text[i - 1]) || text[i - 1] === '.' || text[i - 1] === ',') return null;
  let j = i;
  let digits = '';
  while (j < text.length && (isDigit(text[j]) || (text[j] === ',' && isDigit(text[j + 1]) && isDigit(text[j + 2]) && isDigit(text[j + 3])))) {
    if (text[j] !== ',') digits += text[j];
    j++;
  }
  if (text[j] === '.' && isDigit(text[j + 1])) {
    digits += '.';
    j++;
    while (isDigit(text[j])) digits += text[j++];
  }
  const value = Number(digits);
  return Number.isFinite(value) ? { value, end: j } : null;
}

/** The stated doses of `entry` in an Answer; `inPlay` are every drug in play (their aliases compete). */
export function statedDoses(answer: string, entry: DrugEntry, inPlay: readonly DrugEntry[]): StatedDose[] {
  const out: StatedDose[] = [];
  for (const clause of splitClauses(answer.toLowerCase())) {
    const aliases = aliasMatches(clause.text, inPlay);
    if (!aliases.some((a) => a.entry.id === entry.id)) continue;
    const perDay = frequencyPerDay(clause.text);
    for (let i = 0; i < clause.text.length; i++) {
      const n = numberAt(clause.text, i);
      if (!n) continue;
      const start = i;
      i = n.end - 1;
      const after = clause.text.slice(n.end, n.end + 40);
      const unit = DOSE_UNIT.exec(after);
      if (!unit) continue;
      const rest = after.slice(unit[0].length);
      if (PER_KG.test(rest)) continue;
      if (LIMIT_CUE.test(clause.text.slice(Math.max(0, start - LIMIT_WINDOW), start))) continue;
      const owner = nearestAlias(aliases, start, n.end);
      if (!owner || owner.entry.id !== entry.id) continue;
      const daily = PER_DAY.test(rest);
      out.push({ mg: n.value, perDay: daily ? 1 : perDay, dailyAmount: daily });
    }
  }
  return out;
}

/** The alias occurrence closest to a dose at [start, end), within the alias window; null when none. */
function nearestAlias(aliases: ReturnType<typeof aliasMatches>, start: number, end: number) {
  let best: (typeof aliases)[number] | null = null;
  let bestDistance = Infinity;
  for (const a of aliases) {
    const distance = a.end <= start ? start - a.end : a.start >= end ? a.start - end : 0;
    if (distance <= ALIAS_WINDOW && distance < bestDistance) {
      best = a;
      bestDistance = distance;
    }
  }
  return best;
}
