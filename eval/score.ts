/**
 * Scoring one answer against its scenario: citations against the expected record ids, abstention,
 * expected facts, forbidden claims, knowledge safety recall, and — for scripted replies — what the
 * hub's gates did with a reply known to be right or wrong. Pure: envelope and scenario in, numbers out.
 */
import type { ExpectedFact, Scenario } from './scenarios';

/** The envelope fields scoring reads (product and bare evaluation envelopes both carry them). */
export interface ScoredEnvelope {
  answer?: string;
  references?: Array<{ index?: number; sourceId?: string; source?: string; resolutionStatus?: string; usage?: Array<{ location?: string }> }>;
  temporalGate?: { mode?: string; status?: string; checks?: Array<{ id?: string; status?: string }> } | null;
  answerValidation?: { status?: string; issues?: Array<{ id?: string }> } | null;
  safetyStatus?: string;
  drug_safety?: { status?: string; warnings?: unknown[] } | null;
  /** context_view.v1 (product profiles): the ledger records the prompt carried. */
  context?: { included_ids?: string[] } | null;
}

export interface GateView {
  /** A deterministic gate looked at this answer (temporal gate on, or an answer validation present). */
  ran: boolean;
  /** The envelope marks the answer: temporal fail, validation needs_review/edited, or an unresolved citation. */
  flagged: boolean;
  /** What marked it: `temporal:<check>`, `validation:<issue>`, `reference:unresolved`. */
  signals: string[];
}

export interface CitationScore { tp: number; fp: number; fn: number; precision: number | null; recall: number | null; f1: number | null }

/** `inline:3` → `3`; `querystore:obs:<uuid>` → `<uuid>`; any other source keeps its id. */
export function recordIdOf(sourceId: string): string {
  if (sourceId.startsWith('inline:')) return sourceId.slice('inline:'.length);
  if (sourceId.startsWith('querystore:')) return sourceId.slice(sourceId.lastIndexOf(':') + 1);
  return sourceId;
}

/** References the Answer itself cites (In-Depth's own citations are not the Answer's). */
function answerReferences(env: ScoredEnvelope): NonNullable<ScoredEnvelope['references']> {
  return (env.references ?? []).filter((r) => !r.usage || r.usage.length === 0 || r.usage.some((u) => u.location === 'answer'));
}

export function citedIds(env: ScoredEnvelope): { resolved: string[]; unresolved: number } {
  const refs = answerReferences(env);
  const resolved = refs.filter((r) => r.resolutionStatus === 'resolved' && r.sourceId).map((r) => recordIdOf(r.sourceId!));
  return { resolved: [...new Set(resolved)], unresolved: refs.filter((r) => r.resolutionStatus !== 'resolved').length };
}

export function scoreCitations(expected: readonly string[], env: ScoredEnvelope): CitationScore {
  const { resolved, unresolved } = citedIds(env);
  const want = new Set(expected);
  const tp = resolved.filter((id) => want.has(id)).length;
  const fp = resolved.length - tp + unresolved;
  const fn = want.size - tp;
  const precision = tp + fp > 0 ? tp / (tp + fp) : null;
  const recall = want.size > 0 ? tp / want.size : null;
  const f1 = precision !== null && recall !== null ? (precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0) : null;
  return { tp, fp, fn, precision, recall, f1 };
}

// Phrases of an answer that declines: kept as plain alternations (linear-time; eslint's regexp rules hold them).
const ABSTAIN = [
  /\b(?:does|do|did) not (?:record|contain|document|mention|include|show|list)\b/i,
  /\bnot (?:documented|recorded|available|found|mentioned|listed)\b/i,
  /\bno (?:record|records|documentation|information|data|mention|result|results|reading|readings)\b/i,
  /\b(?:cannot|can't|unable to) (?:safely )?(?:answer|determine|find|tell)\b/i,
  /\binsufficient (?:information|evidence|data)\b/i,
];

/** The answer says the chart cannot answer (or is empty). */
export function abstained(answer: string): boolean {
  return answer.trim() === '' || ABSTAIN.some((re) => re.test(answer));
}

const TREND_WORDS: Record<NonNullable<ExpectedFact['trend']>, string[]> = {
  increased: ['increas', 'rose', 'risen', 'rising', 'went up', 'gone up', 'higher', 'gain', 'upward', 'improv'],
  decreased: ['decreas', 'fell', 'fallen', 'falling', 'dropped', 'declin', 'went down', 'gone down', 'lower', 'loss', 'downward', 'reduc'],
  stable: ['stable', 'unchanged', 'steady', 'no change', 'not changed', 'remained'],
};

const normal = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** A fact is hit when the answer states every part it names (value text, ISO date, trend in any of its words). */
export function factHit(fact: ExpectedFact, answer: string): boolean {
  const text = normal(answer);
  if (fact.value !== undefined && !text.includes(normal(fact.value))) return false;
  if (fact.date !== undefined && !text.includes(fact.date)) return false;
  if (fact.trend !== undefined && !TREND_WORDS[fact.trend].some((w) => text.includes(w))) return false;
  return true;
}

export function forbiddenHits(claims: readonly string[], answer: string): string[] {
  const text = normal(answer);
  return claims.filter((c) => text.includes(normal(c)));
}

export function gateView(env: ScoredEnvelope): GateView {
  const tg = env.temporalGate ?? null;
  const av = env.answerValidation ?? null;
  const signals = new Set<string>();
  for (const c of tg?.checks ?? []) if (c.status === 'fail' && c.id) signals.add(`temporal:${c.id}`);
  if (av && av.status !== 'checked') for (const i of av.issues ?? []) if (i.id) signals.add(`validation:${i.id}`);
  if (citedIds(env).unresolved > 0) signals.add('reference:unresolved');
  const ran = (tg !== null && tg.mode !== 'off') || av !== null;
  const flagged = tg?.status === 'fail' || av?.status === 'needs_review' || av?.status === 'edited' || signals.has('reference:unresolved');
  return { ran, flagged, signals: [...signals] };
}

/**
 * What the gates did with a scripted reply: a right one `clean` or `false_fail`; a wrong one the gate
 * must flag `caught` (with an expected signal), `caught_other` (flagged for another reason) or `missed`;
 * a known gap `gap_passed` or `gap_caught`; `no_gate` when the profile runs no deterministic check.
 */
export type GateOutcome = 'clean' | 'false_fail' | 'caught' | 'caught_other' | 'missed' | 'gap_passed' | 'gap_caught' | 'no_gate';

export function gateOutcome(view: GateView, expected: { gate: 'right' | 'flag' | 'pass'; signals?: readonly string[] }): GateOutcome {
  if (!view.ran && !view.signals.includes('reference:unresolved')) return 'no_gate';
  if (expected.gate === 'right') return view.flagged ? 'false_fail' : 'clean';
  if (expected.gate === 'pass') return view.flagged ? 'gap_caught' : 'gap_passed';
  if (!view.flagged) return 'missed';
  const wanted = expected.signals ?? [];
  return wanted.length === 0 || wanted.some((s) => view.signals.includes(s)) ? 'caught' : 'caught_other';
}

/** Knowledge-base records the turn put before the model (the context view) or cited (references). */
export function knowledgeRecordIds(env: ScoredEnvelope): string[] {
  const ids = [...(env.context?.included_ids ?? []), ...(env.references ?? []).map((r) => r.sourceId ?? '')];
  return [...new Set(ids.filter((id) => id.startsWith('knowledge-base:')))];
}

export interface AnswerScore {
  citations: CitationScore;
  abstained: boolean;
  abstain_correct: boolean;
  facts: { hit: number; total: number; missed: ExpectedFact[] };
  forbidden_hits: string[];
  /** Knowledge safety recall on this turn, or null when the scenario expects no knowledge safety items. */
  knowledge_safety: { hit: number; total: number } | null;
}

export function scoreAnswer(scenario: Scenario, env: ScoredEnvelope): AnswerScore {
  const answer = env.answer ?? '';
  const didAbstain = abstained(answer) && citedIds(env).resolved.length === 0;
  const missed = scenario.expected_facts.filter((f) => !factHit(f, answer));
  const knowledgeIds = knowledgeRecordIds(env);
  const safety = scenario.knowledge?.expected_safety_ids;
  return {
    citations: scoreCitations(scenario.expected_citations, env),
    abstained: didAbstain,
    abstain_correct: didAbstain === scenario.expect_abstain,
    facts: { hit: scenario.expected_facts.length - missed.length, total: scenario.expected_facts.length, missed },
    forbidden_hits: forbiddenHits(scenario.forbidden_claims, answer),
    knowledge_safety: safety ? { hit: safety.filter((id) => knowledgeIds.some((k) => k.includes(id))).length, total: safety.length } : null,
  };
}
