/**
 * Label-only Answer review (§7.3 Target, decision 9): parse the reviewer's `rewrite_verdict` and
 * decide which flags count. The Answer is never replaced — `corrected_answer` is parsed for shape
 * only. A flag counts when its `wrong` text is in the Answer, its `chart` quote points into the
 * chart, and it is not against a statement the dated series confirm; everything else becomes an
 * info issue so the reviewer's doubt stays visible without marking a correct Answer.
 */
import { confirmedMentioned, type ConfirmedStatement } from './confirmed';
import { extractJsonObject, isJsonObject } from './json';
import { normaliseForMatch } from './normalise';
import { trimEndChars } from '../../text-scan';

export interface ReviewError {
  wrong: string;
  chart: string;
  fix: string;
}

export interface RewriteVerdict {
  answer_ok: boolean;
  errors: ReviewError[];
  /** Parsed but never used: the reviewer labels, it does not rewrite (decision 9). */
  corrected_answer: string;
  /** folded grounding: the raw `pairs` value if the reply carries one */
  pairs?: unknown;
}

export const REWRITE_VERDICT_RESPONSE_FORMAT: Record<string, unknown> = {
  type: 'json_schema',
  json_schema: {
    name: 'rewrite_verdict',
    schema: {
      type: 'object',
      required: ['answer_ok'],
      properties: {
        answer_ok: { type: 'boolean' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['wrong', 'chart', 'fix'],
            properties: { wrong: { type: 'string' }, chart: { type: 'string' }, fix: { type: 'string' } },
          },
        },
        corrected_answer: { type: 'string' },
      },
    },
  },
};

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/**
 * null when the reply holds no object, `answer_ok` is not a boolean, or `errors` is present but not
 * a list (a malformed reply is never read as clean). Error entries without a usable `wrong` are dropped.
 */
export function parseRewriteVerdict(content: string): RewriteVerdict | null {
  const obj = extractJsonObject(content);
  if (!obj || typeof obj.answer_ok !== 'boolean') return null;
  const rawErrors = obj.errors ?? [];
  if (!Array.isArray(rawErrors)) return null;
  const errors: ReviewError[] = [];
  for (const e of rawErrors) {
    if (!isJsonObject(e) || typeof e.wrong !== 'string' || e.wrong.trim() === '') continue;
    errors.push({ wrong: e.wrong.trim(), chart: str(e.chart), fix: str(e.fix) });
  }
  const verdict: RewriteVerdict = { answer_ok: obj.answer_ok, errors, corrected_answer: typeof obj.corrected_answer === 'string' ? obj.corrected_answer : '' };
  if ('pairs' in obj) verdict.pairs = obj.pairs;
  return verdict;
}

export interface ReviewContext {
  /** The reviewed text: Answer prose plus table rows rendered as lines. */
  reviewedText: string;
  /** Number of records in the complete ledger ([N] is in the chart iff 1 ≤ N ≤ ledgerSize). */
  ledgerSize: number;
  /** The complete chart text (all records), for quotes without a marker. */
  chartText: string;
  confirmed: readonly ConfirmedStatement[];
}

export interface ReviewJudgement {
  /** checked: nothing counted; needs_review: at least one counted flag; unavailable: no usable verdict. */
  status: 'checked' | 'needs_review' | 'unavailable';
  /** Issues for answerValidation.issues, in reply order. */
  issues: Array<Record<string, unknown>>;
  /** Flags that count (localised, chart-quoted, not against a confirmed statement). */
  counted: ReviewError[];
  /** One short yellow note for a needs_review / unavailable outcome, '' otherwise. */
  note: string;
}

export const REVIEW_UNAVAILABLE_NOTE = 'The model review was unavailable; the answer was not reviewed by a second model.';
/** Bounds the note: it is one line under the Answer, not the reviewer's essay. */
const NOTE_DETAIL_MAX = 200;

const MARKER = /\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]/g;

/**
 * The chart quote points into the chart: every `[N]` it carries is a ledger record (an invented
 * index is a sign the quote is too), or, with no marker, its text occurs in the complete chart.
 */
function quotesChart(chart: string, ledgerSize: number, normalisedChart: string): boolean {
  const indices = [...chart.normalize('NFKC').matchAll(MARKER)].flatMap((m) => m[1].split(/[,;]/).map((s) => Number(s.trim())));
  if (indices.length > 0) return indices.every((n) => Number.isInteger(n) && n >= 1 && n <= ledgerSize);
  const quote = normaliseForMatch(chart);
  return quote !== '' && normalisedChart.includes(quote);
}

function infoIssue(id: string, reason: string, e: ReviewError): Record<string, unknown> {
  return { id, status: 'info', severity: 'info', reason, wrong: e.wrong, chart: e.chart, fix: e.fix };
}

function shorten(text: string): string {
  // Blanks are single spaces by now, so `' '` stands for `\s`; a scan, as `/[\s.;:!?]+$/` was quadratic on a long run.
  const s = trimEndChars(text.replace(/\s+/g, ' ').trim(), ' .;:!?');
  return s.length <= NOTE_DETAIL_MAX ? s : `${s.slice(0, NOTE_DETAIL_MAX - 1).trimEnd()}…`;
}

/**
 * Decides the review outcome from the errors alone: `answer_ok` is ignored because small models
 * often contradict their own list (§12 "inconsistent answer_ok flag derived from errors").
 */
export function judgeReview(verdict: RewriteVerdict | null, ctx: ReviewContext): ReviewJudgement {
  if (!verdict) {
    return {
      status: 'unavailable',
      issues: [{ id: 'answer_review_unavailable', status: 'warn', severity: 'warn', reason: 'The model review could not be completed; the answer was not reviewed.' }],
      counted: [],
      note: REVIEW_UNAVAILABLE_NOTE,
    };
  }
  const reviewed = normaliseForMatch(ctx.reviewedText);
  let chart: string | null = null; // normalised lazily: the complete chart can be large
  const issues: Array<Record<string, unknown>> = [];
  const counted: ReviewError[] = [];
  for (const e of verdict.errors) {
    const wrong = normaliseForMatch(e.wrong);
    if (wrong === '' || !reviewed.includes(wrong)) {
      issues.push(infoIssue('review_doubt', 'The reviewer quoted text that is not in the answer.', e));
      continue;
    }
    chart ??= normaliseForMatch(ctx.chartText);
    if (!quotesChart(e.chart, ctx.ledgerSize, chart)) {
      issues.push(infoIssue('review_doubt', 'The reviewer flag does not quote the chart.', e));
      continue;
    }
    const confirmed = confirmedMentioned(e.wrong, ctx.confirmed);
    if (confirmed) {
      issues.push(infoIssue('review_set_aside', `The reviewer flagged a statement the dated series confirms (${confirmed.text}).`, e));
      continue;
    }
    counted.push(e);
    issues.push({ id: 'answer_review', status: 'fail', severity: 'warn', reason: e.fix || 'The reviewer flagged this statement.', wrong: e.wrong, chart: e.chart, fix: e.fix });
  }
  if (counted.length === 0) return { status: 'checked', issues, counted, note: '' };
  const first = counted[0];
  const note = `Clinical review flagged: ${shorten(first.fix || first.wrong)}. The answer is shown as written; verify against the chart.`;
  return { status: 'needs_review', issues, counted, note };
}
