/**
 * Conformance family `context_policy` (clients.md §4 and §6): the hub's real selector against the shared
 * fixture, fed the way a QueryStore turn feeds it. The fixture names record ids and the slice tiers
 * QueryStore gives them; here they become QueryStore records (the ledger, newest first) and slice rows
 * (`tier` per row), go through the serializer (`toLedger`), slice resolution against the ledger
 * (identity + content digest, highest tier wins) and `annotate`, and the annotated ledger goes to
 * `selectContext` with a fake additive tokenizer. Each case's adapter supplies what the fixture leaves
 * implicit (the question, records a budget case needs); cases are iterated by id, so a new fixture case
 * without an adapter fails.
 *
 * Reading of the panel case: QueryStore's panel completion lists the similarity-matched panel head and
 * its members as `panel` rows (the fixture expects tier `panel` for all three), so the head is sent as
 * a `panel` row, not also as a `similarity` row — with both rows, "highest tier wins" would make it
 * `similarity` (slice order: mandatory > exact > recency_anchor > typed > similarity > panel).
 */
import * as fs from 'fs';
import * as path from 'path';
import { HubError } from '../../server/errors';
import { renderRecordLine } from '../../server/context/render';
import { isMandatory } from '../../server/context/ranking';
import { selectContext } from '../../server/context/selector';
import { annotateLedger, resolveSlice } from '../../server/context/sources/querystore/resolve';
import { toLedger } from '../../server/context/sources/querystore/serialize';
import type { QuerystoreRecord } from '../../server/context/sources/querystore/types';
import type { EvidenceLedger, SliceTier } from '../../server/context/types';

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

/** QueryStore resource type and text of each fixture id (the id is the record's resourceUuid). */
const RECORDS: Record<string, { type: string; text: string; metadata?: Record<string, unknown>; administrative?: boolean }> = {
  'p-1': { type: 'patient', text: 'Patient: 41-year-old Male. Born 1985-03-02', administrative: true },
  'allergy-1': { type: 'allergy', text: 'Allergy: Penicillin (rash)' },
  'cond-active': { type: 'condition', text: 'Condition: Hypertension, status: active' },
  'cond-old': { type: 'condition', text: 'Condition: Sprained ankle, status: resolved' },
  'med-1': { type: 'drug_order', text: 'Medication: Lisinopril 10.0 mg daily' },
  'med-2': { type: 'drug_order', text: 'Medication: Metformin 500 mg twice daily' },
  'med-3': { type: 'drug_order', text: 'Medication: Amlodipine 5 mg daily' },
  'visit-1': { type: 'visit', text: 'Encounter: Outpatient visit' },
  'recent-1': { type: 'obs', text: 'Finding — Weight (kg): 70.0 kg' },
  'noise-1': { type: 'obs', text: 'Assessment — Return visit date: 2023-01-01' },
  '11111111-1111-4111-8111-111111111111': { type: 'obs', text: 'Obs: reference 11111111-1111-4111-8111-111111111111' },
  'coded-1': { type: 'diagnosis', text: 'Diagnosis: Malaria (CIEL:12345)' },
  'panel-1': { type: 'obs', text: 'Finding — Complete blood count panel' },
  'member-1': { type: 'obs', text: 'Finding — Hemoglobin: 12.0 g/dL', metadata: { obs_group_uuid: 'panel-1', obs_group_concept_name: 'Complete blood count' } },
  'member-2': { type: 'obs', text: 'Finding — Platelets: 250 10^9/L', metadata: { obs_group_uuid: 'panel-1', obs_group_concept_name: 'Complete blood count' } },
};
/** An undated record no question here relates to: it forces a `selected` view, where reasons are reported. */
const FILLER_ID = 'filler-unrelated';

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

/** The slice rows QueryStore would send for the case: one row per (id, tier) the case names. */
function sliceRowsOf(c: PolicyCase, adapter: Adapter): Array<[string, SliceTier]> {
  const panels = c.panel_members ?? {};
  const rows: Array<[string, SliceTier]> = [
    ...(c.mandatory_ids ?? []).map((id) => [id, 'mandatory'] as [string, SliceTier]),
    ...(c.exact_match_ids ?? []).map((id) => [id, 'exact'] as [string, SliceTier]),
    ...(c.recency_anchor_ids ?? []).map((id) => [id, 'recency_anchor'] as [string, SliceTier]),
    ...(c.typed_complete_ids ?? []).map((id) => [id, 'typed'] as [string, SliceTier]),
    // A similarity match that panel completion expanded is listed as a panel row (see the header).
    ...(c.similarity_matched_ids ?? []).filter((id) => !(id in panels)).map((id) => [id, 'similarity'] as [string, SliceTier]),
    ...Object.entries(panels).flatMap(([head, members]) => [head, ...members].map((id) => [id, 'panel'] as [string, SliceTier])),
    ...Object.entries(adapter.extraTiers ?? {}),
  ];
  return rows;
}

/** The patient's chart as QueryStore sends it: newest first, the filler last. */
function chartOf(ids: readonly string[], padding: ReadonlyMap<string, number>): QuerystoreRecord[] {
  const records: QuerystoreRecord[] = ids.map((id, i) => {
    const spec = RECORDS[id] ?? { type: 'obs', text: `Note: ${id}` };
    const date = `2026-01-${String(28 - i).padStart(2, '0')}`;
    const pad = Array.from({ length: padding.get(id) ?? 0 }, () => ' tablet').join('');
    return {
      resourceType: spec.type, resourceUuid: id, date, clinicalDate: spec.administrative ? null : date,
      dateKind: spec.administrative ? 'administrative' : 'clinical_event', text: spec.text + pad, metadata: spec.metadata ?? {},
      lastModified: `${date}T08:00:00Z`,
    };
  });
  records.push({ resourceType: 'program', resourceUuid: FILLER_ID, date: null, text: 'Program: enrolled in community outreach', metadata: {}, lastModified: null });
  return records;
}

/** QueryStore records → ledger → slice resolution → annotated ledger (what the QueryStore source hands the selector). */
function annotatedLedger(chart: QuerystoreRecord[], rows: ReadonlyArray<[string, SliceTier]>): EvidenceLedger {
  const byId = new Map(chart.map((r) => [r.resourceUuid, r]));
  const sliceRows: QuerystoreRecord[] = rows.map(([id, tier]) => ({ ...byId.get(id)!, tier }));
  const resolution = resolveSlice(chart, sliceRows);
  expect(resolution.unresolved).toEqual([]);
  return annotateLedger(toLedger(chart), { tiers: resolution.tiers });
}

/** Measured tokens of a selected chart holding exactly `ids` (the fake tokenizer is additive). */
function tokensOf(ledger: EvidenceLedger, ids: ReadonlySet<string>): number {
  return OVERHEAD + ledger.records.reduce((n, r, i) => n + (ids.has(r.resourceUuid!) ? words(renderRecordLine(r, i + 1)) : 0), 0);
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
    const rows = sliceRowsOf(c, adapter);
    const tiered = new Set(rows.map(([rid]) => rid));
    const ids = [...new Set([...(c.chart_order_ids ?? []), ...rows.map(([rid]) => rid), ...(c.must_exclude_ids ?? [])])];

    // Calibration: pad the first record of a set so that a chart of exactly that set measures the target.
    const padding = new Map<string, number>();
    let ledger = annotatedLedger(chartOf(ids, padding), rows);
    const mandatoryIds = new Set(ledger.records.filter(isMandatory).map((r) => r.resourceUuid!));
    const calibrate = (set: ReadonlySet<string>, target: number) => {
      const missing = target - tokensOf(ledger, set);
      expect(missing).toBeGreaterThanOrEqual(0);
      const first = ids.find((rid) => set.has(rid))!;
      padding.set(first, (padding.get(first) ?? 0) + missing);
      ledger = annotatedLedger(chartOf(ids, padding), rows);
      expect(tokensOf(ledger, set)).toBe(target);
    };
    if (c.mandatory_tokens !== undefined) calibrate(mandatoryIds, c.mandatory_tokens);
    if (c.selected_tokens !== undefined) calibrate(tiered, c.selected_tokens);
    // The full chart is what a full view would send: the serializer's text, line for line.
    expect(ledger.originalText).toBe(ledger.records.map((r, i) => `${renderRecordLine(r, i + 1)}\n`).join(''));

    const run = () => selectContext({ ledger, question: c.question ?? adapter.question, inputLimit: c.budget_tokens ?? 100_000, ...tokenizer });

    if (c.expected === 'insufficient_context') {
      const err = await run().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(HubError);
      expect((err as HubError).code).toBe('insufficient_context');
      const stableIds = ledger.records.filter((r) => mandatoryIds.has(r.resourceUuid!)).map((r) => r.stableId);
      expect(stableIds.length).toBeGreaterThan(0);
      expect((err as HubError).extra).toMatchObject({ source: 'selector', mandatory_ids: stableIds });
      return;
    }

    const view = await run();
    const included = view.records.map((r) => r.resourceUuid!);
    const reasonOf = new Map(view.records.map((r, i) => [r.resourceUuid!, view.included[i].reason]));
    // Every ledger record is accounted for exactly once, in canonical order.
    expect([...view.included, ...view.excluded].map((e) => e.stableId).sort()).toEqual(ledger.records.map((r) => r.stableId).sort());
    expect(view.included.map((e) => e.stableId)).toEqual(view.records.map((r) => r.stableId));
    expect(view.recordIndices).toEqual([...view.recordIndices].sort((a, b) => a - b));
    expect(included).not.toContain(FILLER_ID);
    // A selected view shows each record exactly as the full chart does.
    const fullLines = ledger.originalText.split('\n');
    view.chartText.split('\n').filter(Boolean).forEach((line, k) => expect(line).toBe(fullLines[view.recordIndices[k] - 1]));

    for (const want of c.expected_included ?? []) expect(included).toContain(want);
    const stableIdOf = new Map(ledger.records.map((r) => [r.resourceUuid!, r.stableId]));
    for (const banned of c.must_exclude_ids ?? []) {
      expect(included).not.toContain(banned);
      expect(view.excluded).toContainEqual({ stableId: stableIdOf.get(banned), reason: 'zero_relevance' });
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
      expect(tokensOf(ledger, new Set(ids.concat(FILLER_ID)))).toBeLessThanOrEqual(c.budget_tokens!);
    }
    for (const [tierId, tier] of expectedTiers(c)) {
      expect(ledger.records.find((r) => r.resourceUuid === tierId)?.sliceTier ?? (mandatoryIds.has(tierId) ? 'mandatory' : null)).toBe(tier);
      expect(reasonsFor(tier)).toContain(reasonOf.get(tierId));
    }
  });
});

function expectedTiers(c: PolicyCase): Array<[string, string]> {
  if (c.expected_tier === undefined) return [];
  if (typeof c.expected_tier === 'object') return Object.entries(c.expected_tier);
  const list = TIER_LISTS[c.expected_tier];
  if (!list) throw new Error(`case ${c.id}: no id list for expected_tier ${c.expected_tier}`);
  return ((c[list] as string[] | undefined) ?? []).map((id) => [id, c.expected_tier as string]);
}
