/**
 * The In-Depth temporal and citation gate (§6.4 with its Target deltas, §7.7 Target, §13.1 #6/#8/#9):
 * every claim is read on its own words (never the question's), safe repairs are applied in
 * `enforce`, and a claim that fails a check is **marked** with a short note naming the check and what
 * the chart says. No claim is ever removed or replaced by a patch: a second text the writer never
 * wrote must not ship as its claim, and dropping claims hid the evidence from the clinician.
 */
import { canonicalizeCitationGroups } from '../contracts';
import { runSteps, type Steps } from '../../event-loop';
import { temporalGateSteps } from './gate';
import { citedIndices, hasDanglingBracket, ledgerDates, repairDanglingBracket, repairOddDates } from './indepth-repair';
import type { GateCheck, GateMode, TemporalFacts, TemporalGateResult } from './types';

export interface InDepthGateInput {
  claims: string[];
  facts: TemporalFacts | null;
  mode: GateMode;
  /** Records in the current evidence ledger: valid citations are 1..ledgerSize. */
  ledgerSize: number;
}

export interface InDepthClaimCheck {
  /** 1-based. */
  claim_index: number;
  /** The claim as the writer wrote it. */
  claim: string;
  /** The text that was checked, when safe repairs changed it. */
  evaluated_claim?: string;
  gate: TemporalGateResult;
  citation_repair?: { status: 'repaired'; source_index: number; reason: string };
  citation_canonicalization?: { status: 'canonicalized'; source_indices: number[] };
  citation_format?: { status: 'fail'; reason: string };
  date_repair?: { status: 'repaired'; from: string; to: string };
}

export interface InDepthMark {
  claim_index: number;
  /** `trend_direction`, `date_value_binding`, `date_format`, …, `citation_format`, `citation_outside_chart`. */
  check: string;
  level: 'red' | 'yellow';
  /** Short: names the check and what the chart says. */
  note: string;
}

export interface InDepthGateResult {
  schema_version: 'indepth_temporal_gate.v1';
  mode: GateMode;
  status: 'checked' | 'edited' | 'needs_review' | 'not_applicable';
  /** Every claim, in order, after safe repairs; never fewer than the input. */
  claims: string[];
  marked: InDepthMark[];
  /** Always empty: the Target marks claims, it never removes them (decision 9). */
  removed: [];
  checks: InDepthClaimCheck[];
}

interface ClaimOutcome {
  text: string;
  check: InDepthClaimCheck;
  marks: InDepthMark[];
}

/**
 * Which failing check a claim's mark is named after: the Answer gate's patch precedence (§6.3), so the
 * patch quoted in the note is the one that check produced.
 */
const PRIMARY_ORDER = ['upcoming_date', 'last_visit', 'single_point_trend', 'trend_direction', 'date_format', 'date_value_binding'];

function notApplicable(mode: GateMode): TemporalGateResult {
  return { schema_version: 'temporal_gate.v1', mode, status: 'not_applicable', checks: [], patch_answer: null, patch_citations: [] };
}

export function runInDepthGate(input: InDepthGateInput): InDepthGateResult {
  return runSteps(inDepthGateSteps(input));
}

/** `runInDepthGate` with pause points between claims and inside each claim's gate (many claims on a large chart). */
export function* inDepthGateSteps(input: InDepthGateInput): Steps<InDepthGateResult> {
  const base = { schema_version: 'indepth_temporal_gate.v1' as const, mode: input.mode, removed: [] as [] };
  // Off: nothing is checked, but the claims still ship as written.
  if (input.mode === 'off') return { ...base, status: 'not_applicable', claims: [...input.claims], marked: [], checks: [] };
  const outcomes: ClaimOutcome[] = [];
  for (let i = 0; i < input.claims.length; i++) {
    outcomes.push(yield* checkClaim(input.claims[i], i + 1, input));
    yield;
  }
  const marked = outcomes.flatMap((o) => o.marks);
  const changed = outcomes.some((o) => o.text !== o.check.claim);
  return {
    ...base,
    // An honest empty In-Depth (`{"claims": []}`) falls through to `checked` (§13.1 #8).
    status: statusOf(input.mode, marked, changed),
    claims: outcomes.map((o) => o.text),
    marked,
    checks: outcomes.map((o) => o.check),
  };
}

function statusOf(mode: GateMode, marked: readonly InDepthMark[], changed: boolean): InDepthGateResult['status'] {
  if (marked.some((m) => m.level === 'red')) return 'needs_review';
  if (mode === 'warn' && marked.length > 0) return 'needs_review';
  return changed ? 'edited' : 'checked';
}

function* checkClaim(original: string, claimIndex: number, input: InDepthGateInput): Steps<ClaimOutcome> {
  const enforce = input.mode === 'enforce';
  const check: InDepthClaimCheck = { claim_index: claimIndex, claim: original, gate: notApplicable(input.mode) };
  let text = original;

  // (1) Grouped markers: canonical in enforce; warn reads the same indices without touching text.
  const canonical = canonicalizeCitationGroups(text);
  if (enforce && canonical.changed) {
    text = canonical.text;
    check.citation_canonicalization = { status: 'canonicalized', source_indices: citedIndices(text).filter((n) => n > 0) };
  }
  // (2) Garbled date separators, then (3) a dangling `[`: before checking, so the checks judge what
  // the writer meant rather than failing it on a sampler artefact.
  if (enforce && input.facts) {
    const dates = repairOddDates(text, ledgerDates(input.facts));
    if (dates) {
      text = dates.text;
      check.date_repair = { status: 'repaired', from: dates.from, to: dates.to };
    }
    const dangling = repairDanglingBracket(text, input.facts);
    if (dangling) {
      text = dangling.text;
      check.citation_repair = { status: 'repaired', source_index: dangling.sourceIndex, reason: dangling.reason };
    }
  }
  if (text !== original) check.evaluated_claim = text;

  const cited = citedIndices(text);
  const malformed = [...canonical.malformed.map((m) => `\`${m}\``), ...(hasDanglingBracket(text) ? ['the unfinished `[` at the end'] : [])];
  const marks: InDepthMark[] = [];
  // An uncited claim is general guidance (§7.7 Target): tagged later, never marked or failed here.
  if (cited.length === 0 && malformed.length === 0) return { text, check, marks };

  // (4) The claim's own words with an empty question (§13.1 #6); trend rules only for series it cites.
  check.gate = yield* temporalGateSteps({ question: '', answer: text, citations: cited.filter((n) => n > 0), facts: input.facts, mode: input.mode, claimLocal: true });
  const temporal = temporalMark(claimIndex, check.gate);
  if (temporal) marks.push(temporal);

  // (5) Malformed markers left after canonicalisation: the record meant cannot be told.
  if (malformed.length > 0) {
    check.citation_format = { status: 'fail', reason: `Malformed citation syntax: ${malformed.join(', ')}.` };
    const verb = malformed.length === 1 ? 'is not a valid citation marker' : 'are not valid citation markers';
    marks.push({ claim_index: claimIndex, check: 'citation_format', level: 'red', note: `Citation check: ${malformed.join(', ')} ${verb}; the chart record meant cannot be told.` });
  }

  // (6) A record that does not exist in this chart.
  const outside = cited.filter((n) => n < 1 || n > input.ledgerSize);
  if (outside.length > 0) {
    const holds = input.ledgerSize < 1 ? 'the evidence ledger is empty' : input.ledgerSize === 1 ? 'the evidence ledger holds [1]' : `the evidence ledger holds [1]–[${input.ledgerSize}]`;
    const list = outside.map((n) => `[${n}]`).join('');
    marks.push({ claim_index: claimIndex, check: 'citation_outside_chart', level: 'red', note: `Record check: ${list} ${outside.length === 1 ? 'is not a record' : 'are not records'} of this chart (${holds}).` });
  }
  return { text, check, marks };
}

/**
 * One mark per failed claim for the date checks, named after its primary failing check. The note
 * quotes the gate's patch (what the chart says) — except for date_format, whose patch is a generic
 * series summary that would not say which written date is wrong.
 */
function temporalMark(claimIndex: number, gate: TemporalGateResult): InDepthMark | null {
  const fails = gate.checks.filter((c) => c.status === 'fail');
  if (fails.length === 0) return null;
  const rank = (c: GateCheck) => {
    const at = PRIMARY_ORDER.indexOf(c.id);
    return at < 0 ? PRIMARY_ORDER.length : at;
  };
  const primary = [...fails].sort((a, b) => rank(a) - rank(b))[0];
  const says = primary.id === 'date_format' || gate.patch_answer === null ? primary.reason : gate.patch_answer;
  return { claim_index: claimIndex, check: primary.id, level: 'red', note: `Date check: ${lowerFirst(says)}` };
}

/** "The documented …" → "the documented …", but "CD4 …" stays as written. */
function lowerFirst(s: string): string {
  return /^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}
