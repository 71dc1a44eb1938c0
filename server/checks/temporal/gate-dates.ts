/**
 * date_format (§6.3): every date the answer writes must be an exact ISO date copied from the date
 * ledger. Flags exposed internal ids (`D2006_03_03`), malformed dates (`2006-05- 18`, `2025-10-//13`,
 * `2026-0-[59]`, Unicode hyphens, day-first), truncated `YYYY-MM`, impossible calendar dates and
 * valid ISO dates absent from the ledger. The scanner is shared with date_value_binding, which must
 * not read the digits of a malformed date as measurements.
 */
import { makeCheck, noResult, type CheckResult, type GateContext } from './gate-common';
import { findIsoDates, isCalendarDate, type IsoDate } from './text';

export interface DateLikeToken {
  text: string;
  start: number;
  end: number;
  kind: 'iso' | 'malformed' | 'truncated' | 'internal_id';
}

const MAX_OFFENDERS = 5;
const SEP = '[-‐‑‒–—―−﹘﹣－/._]';
const HYPHEN = /^[-‐‑‒–—―−﹘﹣－]$/;
/** Year first: 2 or 3 parts, any separators (with stray spaces), optional bracketed parts. */
const YEAR_FIRST = new RegExp(`(?<![\\p{L}\\p{N}_.\\-])\\d{4}\\s*${SEP}+\\s*\\[?\\d{1,2}\\]?(?:\\s*${SEP}+\\s*\\[?\\d{1,2}\\]?)?(?![\\p{L}\\p{N}_\\]])`, 'gu');
/** Day first (`18-05-2006`, `18/05/2006`): a reformatted date. */
const DAY_FIRST = new RegExp(`(?<![\\p{L}\\p{N}_.\\-])\\d{1,2}\\s*${SEP}\\s*\\d{1,2}\\s*${SEP}\\s*\\d{4}(?![\\p{L}\\p{N}_])`, 'gu');
const INTERNAL_ID = /(?<![\p{L}\p{N}_])D\d{4}_\d{2}_\d{2}(?![\p{L}\p{N}_])/gu;
const EXACT_ISO = /^\d{4}-\d{2}-\d{2}$/;
/**
 * `\s*SEP+\s*` with leading blanks taken only from the start of their run (a match never starts
 * inside one), so a long blank run is not re-read from each of its positions.
 */
const SEPARATOR_RUN = new RegExp(`(?:(?<!\\s)\\s+)?${SEP}+\\s*`, 'gu');

/** Classifies one year-first match; null for things that are not dates (`1234.5`, `2006/7`). */
function classifyYearFirst(text: string): DateLikeToken['kind'] | null {
  if (EXACT_ISO.test(text)) return isCalendarDate(text) ? 'iso' : 'malformed';
  const parts = text.match(/\d+/g) ?? [];
  const seps = text.match(SEPARATOR_RUN) ?? [];
  if (parts.length === 3) return 'malformed';
  // Two parts: only a hyphenated year-month (`2026-02`, `2026–02`) or a bracketed part is a date.
  if (/[[\]]/.test(text)) return 'malformed';
  const month = Number(parts[1]);
  return seps.length === 1 && HYPHEN.test(seps[0].trim()) && month >= 1 && month <= 12 ? 'truncated' : null;
}

/** Every date-like token in `text`, in order: exact ISO dates and the malformed ones. */
export function findDateLikeTokens(text: string): DateLikeToken[] {
  const out: DateLikeToken[] = [];
  for (const m of text.matchAll(YEAR_FIRST)) {
    const kind = classifyYearFirst(m[0]);
    if (kind) out.push({ text: m[0], start: m.index, end: m.index + m[0].length, kind });
  }
  for (const m of text.matchAll(DAY_FIRST)) {
    if (!out.some((t) => m.index < t.end && t.start < m.index + m[0].length)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length, kind: 'malformed' });
  }
  for (const m of text.matchAll(INTERNAL_ID)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length, kind: 'internal_id' });
  return out.sort((a, b) => a.start - b.start);
}

function offenceOf(t: DateLikeToken, ledger: ReadonlySet<string>): string | null {
  switch (t.kind) {
    case 'internal_id':
      return `\`${t.text}\` is an internal date id`;
    case 'truncated':
      return `\`${t.text}\` is a truncated date`;
    case 'malformed':
      return `\`${t.text}\` is not an exact ISO date`;
    case 'iso':
      return ledger.has(t.text) ? null : `\`${t.text}\` is not in the date ledger`;
  }
}

export function checkDateFormat(ctx: GateContext): CheckResult {
  const tokens = findDateLikeTokens(ctx.answer);
  const offences: string[] = [];
  const seen = new Set<string>();
  for (const t of tokens) {
    const why = offenceOf(t, ctx.ledger);
    if (why === null || seen.has(t.text)) continue;
    seen.add(t.text);
    offences.push(why);
    if (offences.length === MAX_OFFENDERS) break;
  }
  if (offences.length > 0) {
    const claim = offences.map((o) => o.slice(0, o.indexOf('`', 1) + 1)).join(', ');
    return { checks: [makeCheck('date_format', 'fail', 'block', claim, `Dates must be copied verbatim from the date ledger: ${offences.join('; ')}.`, [])], patch: null };
  }
  const isos = [...new Set(findIsoDates(ctx.answer).map((d: IsoDate) => d.iso))];
  if (isos.length === 0) return noResult();
  return { checks: [makeCheck('date_format', 'pass', 'block', isos.join(', '), 'Every date in the answer is an exact ISO date from the date ledger.', [])], patch: null };
}
