/**
 * Conformance family `context_policy` (clients.md §6): the selector against the shared fixture.
 * The fixture names record ids and the QueryStore slice tiers they carry; each case's adapter
 * supplies what the fixture leaves implicit (the question, record texts, the evidence a budget
 * case selects). Cases are iterated by id, so a new fixture case without an adapter fails.
 */
import * as fs from 'fs';
import * as path from 'path';
import { HubError } from '../../server/errors';
import { renderRecordLine, selectContext } from '../../server/context/selector';
import type { EvidenceLedger, EvidenceRecord, SliceTier } from '../../server/context/types';

const FIXTURE = path.resolve(__dirname, '../../../shared/conformance/dual-provider-conformance.v1.json');

interface PolicyCase {
  id: string;
  question?: string;
  mandatory_ids?: string[];
  typed_complete_ids?: string[];
  recency_anchor_ids?: string[];
  exact_match_ids?: string[];
  similarity_matched_ids?: string[];
  panel_members?: Record<string, string[]>;
  chart_order_ids?: string[];
  expected_included?: string[];
  must_exclude_ids?: string[];
  expected?: string;
  budget_tokens?: number;
  selected_tokens?: number;
  mandatory_tokens?: number;
  expected_no_duplicates?: boolean;
  expected_order_precedes?: Array<[string, string]>;
  expected_tier?: string | Record<string, string>;
}

interface Adapter {
  /** Used when the case gives no question. */
  question: string;
  /** Records (and tiers) the case implies without listing them. */
  extraTiers?: Record<string, SliceTier>;
}

const MED_QUESTION = 'List all current medications.';
const ADAPTERS: Record<string, Adapter> = {
  'context.enumerated-medications-are-complete': { question: MED_QUESTION },
  'context.temporal-adds-recency-anchor': { question: 'What happened most recently?' },
  'context.non-temporal-does-not-fill-budget': { question: MED_QUESTION, extraTiers: { 'allergy-1': 'mandatory', 'med-1': 'typed', 'med-2': 'typed' } },
  'context.explicit-signals-are-retained': { question: '' },
  'context.mandatory-overflow-abstains': { question: MED_QUESTION, extraTiers: { 'p-1': 'mandatory', 'allergy-1': 'mandatory', 'med-1': 'typed' } },
  'context.panel-completion-includes-all-members': { question: 'Is the patient anaemic?' },
  'context.stable-ordering-preserves-chart-order-and-highest-tier-wins': { question: 'How old is the patient and what is the weight?' },
};

const TEXTS: Record<string, string> = {
  'p-1': 'Patient: 41-year-old Male. Born 1985-03-02',
  'allergy-1': 'Allergy: Penicillin (rash)',
  'cond-active': 'Condition: Hypertension, status: active',
  'cond-old': 'Condition: Sprained ankle, status: resolved',
  'med-1': 'Medication: Lisinopril 10 mg daily',
  'med-2': 'Medication: Metformin 500 mg twice daily',
  'med-3': 'Medication: Amlodipine 5 mg daily',
  'visit-1': 'Encounter: Outpatient visit',
  'recent-1': 'Finding — Weight (kg): 70 kg',
  'noise-1': 'Assessment — Return visit date: 2023-01-01',
  '11111111-1111-4111-8111-111111111111': 'Obs: reference 11111111-1111-4111-8111-111111111111',
  'coded-1': 'Diagnosis: Malaria (CIEL:12345)',
  'panel-1': 'Finding — Complete blood count panel',
  'member-1': 'Finding — Hemoglobin: 12 g/dL (part of: Complete blood count)',
  'member-2': 'Finding — Platelets: 250 10^9/L (part of: Complete blood count)',
};
/** An undated record no question here relates to: it forces a `selected` view, where reasons are reported. */
const FILLER_ID = 'filler-unrelated';

/** Where several tiers name one id the highest wins; a similarity match completed into a panel is `panel`. */
const TIER_PRECEDENCE: SliceTier[] = ['mandatory', 'exact', 'recency_anchor', 'typed', 'panel', 'similarity'];
/** Which id list a string-valued `expected_tier` applies to. */
const TIER_LISTS: Partial<Record<string, keyof PolicyCase>> = {
  mandatory: 'mandatory_ids', exact: 'exact_match_ids', recency_anchor: 'recency_anchor_ids', typed: 'typed_complete_ids', similarity: 'similarity_matched_ids',
};
/** Reasons the selector may report for a fixture tier: local exact relevance outranks the slice's `exact`. */
const REASONS_FOR_TIER: Record<string, string[]> = { mandatory: ['mandatory'], exact: ['exact_match', 'slice_exact'] };
const reasonsFor = (tier: string) => REASONS_FOR_TIER[tier] ?? [`slice_${tier}`];

const OVERHEAD = 20;
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const tokenizer = {
  measure: async (chart: string) => OVERHEAD + words(chart),
  recordCosts: async (texts: string[]) => texts.map(words),
};

function tiersOf(c: PolicyCase, adapter: Adapter): Map<string, SliceTier> {
  const named = new Map<SliceTier, string[]>([
    ['mandatory', c.mandatory_ids ?? []],
    ['exact', c.exact_match_ids ?? []],
    ['recency_anchor', c.recency_anchor_ids ?? []],
    ['typed', c.typed_complete_ids ?? []],
    ['panel', Object.entries(c.panel_members ?? {}).flatMap(([head, members]) => [head, ...members])],
    ['similarity', c.similarity_matched_ids ?? []],
  ]);
  for (const [id, tier] of Object.entries(adapter.extraTiers ?? {})) named.get(tier)!.push(id);
  const tiers = new Map<string, SliceTier>();
  for (const tier of TIER_PRECEDENCE) for (const id of named.get(tier)!) if (!tiers.has(id)) tiers.set(id, tier);
  return tiers;
}

function buildLedger(c: PolicyCase, tiers: Map<string, SliceTier>): EvidenceLedger {
  const ids = [...new Set([...(c.chart_order_ids ?? []), ...tiers.keys(), ...(c.must_exclude_ids ?? [])])];
  const records: EvidenceRecord[] = ids.map((id, i) => ({
    stableId: id, source: 'querystore', sourcePriority: 50, resourceType: 'obs', resourceUuid: id,
    // Newest first, like the QueryStore chart.
    date: `2026-01-${String(28 - i).padStart(2, '0')}`,
    text: TEXTS[id] ?? `Note: ${id}`, mandatory: false, sliceTier: tiers.get(id) ?? null, metadata: {}, raw: {},
  }));
  records.push({ stableId: FILLER_ID, source: 'querystore', sourcePriority: 50, resourceType: 'program', resourceUuid: FILLER_ID, date: null, text: 'Program: enrolled in community outreach', mandatory: false, metadata: {}, raw: {} });
  return { records, originalText: '', preamble: '', sources: ['querystore'] };
}

/** Measured tokens of a selected chart holding exactly `ids` (the fake tokenizer is additive). */
function tokensOf(ledger: EvidenceLedger, ids: Set<string>): number {
  return OVERHEAD + ledger.records.reduce((n, r, i) => n + (ids.has(r.stableId) ? words(renderRecordLine(r, i + 1)) : 0), 0);
}

/** Pads the first of `ids` so that a chart of exactly `ids` measures `target` tokens. */
function calibrate(ledger: EvidenceLedger, ids: Set<string>, target: number): void {
  const missing = target - tokensOf(ledger, ids);
  expect(missing).toBeGreaterThanOrEqual(0);
  const first = ledger.records.find((r) => ids.has(r.stableId))!;
  first.text += Array.from({ length: missing }, () => ' tablet').join('');
  expect(tokensOf(ledger, ids)).toBe(target);
}

const fixture = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { context_policy: PolicyCase[] };

describe('conformance: context_policy', () => {
  test('every case has an adapter and every adapter a case', () => {
    expect(fixture.context_policy.length).toBeGreaterThanOrEqual(7);
    expect(fixture.context_policy.map((c) => c.id).sort()).toEqual(Object.keys(ADAPTERS).sort());
  });

  test.each(fixture.context_policy.map((c) => [c.id, c] as const))('%s', async (id, c) => {
    const adapter = ADAPTERS[id];
    if (!adapter) throw new Error(`no adapter for context_policy case ${id}`);
    const tiers = tiersOf(c, adapter);
    const ledger = buildLedger(c, tiers);
    const mandatoryIds = ledger.records.filter((r) => r.sliceTier === 'mandatory').map((r) => r.stableId);
    const tiered = new Set(tiers.keys());
    if (c.mandatory_tokens !== undefined) calibrate(ledger, new Set(mandatoryIds), c.mandatory_tokens);
    if (c.selected_tokens !== undefined) calibrate(ledger, tiered, c.selected_tokens);
    const run = () => selectContext({ ledger, question: c.question ?? adapter.question, inputLimit: c.budget_tokens ?? 100_000, ...tokenizer });

    if (c.expected === 'insufficient_context') {
      const err = await run().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(HubError);
      expect((err as HubError).code).toBe('insufficient_context');
      expect((err as HubError).extra).toMatchObject({ source: 'selector', mandatory_ids: mandatoryIds });
      return;
    }

    const view = await run();
    const included = view.included.map((i) => i.stableId);
    const reasonOf = new Map(view.included.map((i) => [i.stableId, i.reason]));
    // Every ledger record is accounted for exactly once, in canonical order.
    expect([...included, ...view.excluded.map((e) => e.stableId)].sort()).toEqual(ledger.records.map((r) => r.stableId).sort());
    expect(view.recordIndices).toEqual([...view.recordIndices].sort((a, b) => a - b));
    expect(view.records.map((r) => r.stableId)).toEqual(included);
    expect(included).not.toContain(FILLER_ID);

    for (const want of c.expected_included ?? []) expect(included).toContain(want);
    for (const banned of c.must_exclude_ids ?? []) {
      expect(included).not.toContain(banned);
      expect(view.excluded).toContainEqual({ stableId: banned, reason: 'zero_relevance' });
    }
    if (c.expected_no_duplicates) expect(new Set(included).size).toBe(included.length);
    for (const [before, after] of c.expected_order_precedes ?? []) {
      expect(included).toContain(before);
      expect(included).toContain(after);
      expect(included.indexOf(before)).toBeLessThan(included.indexOf(after));
    }
    if (c.budget_tokens !== undefined) expect(view.inputTokens).toBeLessThanOrEqual(c.budget_tokens);
    if (c.selected_tokens !== undefined) expect(view.inputTokens).toBe(c.selected_tokens);
    if (c.expected === 'accept_without_extra_records') {
      expect(new Set(included)).toEqual(tiered);
      // The budget had room for the excluded records: the limit is a ceiling, not a target.
      expect(tokensOf(ledger, new Set(ledger.records.map((r) => r.stableId)))).toBeLessThanOrEqual(c.budget_tokens!);
    }
    for (const [tierId, tier] of expectedTiers(c)) expect(reasonsFor(tier)).toContain(reasonOf.get(tierId));
  });
});

function expectedTiers(c: PolicyCase): Array<[string, string]> {
  if (c.expected_tier === undefined) return [];
  if (typeof c.expected_tier === 'object') return Object.entries(c.expected_tier);
  const list = TIER_LISTS[c.expected_tier];
  if (!list) throw new Error(`case ${c.id}: no id list for expected_tier ${c.expected_tier}`);
  return ((c[list] as string[] | undefined) ?? []).map((id) => [id, c.expected_tier as string]);
}
