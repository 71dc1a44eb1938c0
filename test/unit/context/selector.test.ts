import { HubError } from '../../../server/errors';
import { parseChart } from '../../../server/context/inline-chart';
import { renderLedger, renderRecordLine } from '../../../server/context/render';
import { contextSummary } from '../../../server/context/context-view';
import { rankRecords } from '../../../server/context/ranking';
import { selectContext, type SelectInput } from '../../../server/context/selector';
import type { EvidenceLedger, EvidenceRecord } from '../../../server/context/types';

// ---- helpers ------------------------------------------------------------------------------

const OVERHEAD = 20;
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Deterministic fake tokenizer: one token per whitespace-separated word, plus a fixed prompt overhead. */
function fakeTokenizer(costOf: (line: string) => number = words) {
  const calls = { measure: 0, costs: 0 };
  return {
    calls,
    measure: async (chart: string) => {
      calls.measure++;
      return OVERHEAD + words(chart);
    },
    recordCosts: async (texts: string[]) => {
      calls.costs++;
      return texts.map(costOf);
    },
  };
}

let seq = 0;
function rec(text: string, over: Partial<EvidenceRecord> = {}): EvidenceRecord {
  seq++;
  return {
    stableId: over.stableId ?? `r:${String(seq).padStart(4, '0')}`,
    source: 'inline', sourcePriority: 10, resourceType: 'ChartRecord', resourceUuid: null,
    date: null, text, mandatory: false, metadata: {}, raw: {}, ...over,
  };
}

function ledgerOf(records: EvidenceRecord[], preamble = ''): EvidenceLedger {
  return { records, originalText: '', preamble, sources: ['inline'] };
}

function dayOf(n: number): string {
  const d = new Date(Date.UTC(2020, 0, 1) + n * 86_400_000);
  return d.toISOString().slice(0, 10);
}

const filler = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

async function select(ledger: EvidenceLedger, question: string, inputLimit: number, tok = fakeTokenizer(), extra: Partial<SelectInput> = {}) {
  const view = await selectContext({ ledger, question, inputLimit, measure: tok.measure, recordCosts: tok.recordCosts, ...extra });
  return { view, tok };
}

const reasons = (items: Array<{ stableId: string; reason: string }>) => Object.fromEntries(items.map((i) => [i.stableId, i.reason]));

async function insufficient(p: Promise<unknown>): Promise<HubError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HubError);
    return err as HubError;
  }
  throw new Error('expected insufficient_context');
}

// ---- admission ------------------------------------------------------------------------------

describe('full mode', () => {
  const chart = ['Patient: 41-year-old Male', '[1] (2026-01-02) Encounter: Visit', '[2] Finding — Weight (kg): 71 kg', '[3] (2025-12-01) Allergy: Penicillin'].join('\n');
  const ledger = parseChart(chart, { maxRecords: 100 });
  const fullTokens = OVERHEAD + words(chart);

  test.each<[string, number, 'full' | 'selected']>([
    ['tokens == limit keeps the full chart byte-for-byte', fullTokens, 'full'],
    ['one token over leaves full mode', fullTokens - 1, 'selected'],
  ])('%s', async (_name, limit, mode) => {
    const { view } = await select(ledger, 'anything?', limit);
    expect(view.mode).toBe(mode);
    if (mode === 'full') {
      expect(view.chartText).toBe(chart);
      expect(view.chartText).toBe(renderLedger(ledger));
      expect(view.inputTokens).toBe(limit);
      expect(view.included.every((i) => i.reason === 'full_context')).toBe(true);
      expect(view.recordIndices).toEqual([1, 2, 3]);
    }
  });

  test('identical renderings are measured once', async () => {
    const records = [rec('Encounter: Visit', { date: '2026-01-02' }), rec('Weight: 70 kg', { date: '2026-01-01' })];
    // Nothing fits beside the (empty) mandatory set, so every step up to packing is measured.
    const { view, tok } = await select(ledgerOf(records), 'q', OVERHEAD + 2);
    expect(view.records).toEqual([]);
    // Step 2 (full) and step 3 (eligible) render the same text; step 4 (mandatory-only) is new.
    expect(tok.calls.measure).toBe(2);
    expect(view.measureCalls).toBe(2);
  });
});

describe('selected mode', () => {
  test('oversized selection keeps canonical indices; reasons zero_relevance and token_budget_after_meaningful_overlap', async () => {
    const records = [
      rec('Program: enrolled in outreach'),
      rec('Weight (kg): 70 kg', { date: '2026-01-05' }),
      rec('Allergy: Penicillin'),
      rec(`Weight (kg): 69 kg ${filler(30)}`, { date: '2026-01-04' }),
      rec('Note: unrelated text'),
      rec('Weight (kg): 68 kg', { date: '2026-01-03' }),
    ];
    const mandatoryTokens = OVERHEAD + words(`[3] Allergy: Penicillin`);
    const limit = mandatoryTokens + 2 * words('[2] (2026-01-05) Weight (kg): 70 kg');
    const { view } = await select(ledgerOf(records), 'What is the weight trend?', limit);
    expect(view.mode).toBe('selected');
    expect(view.recordIndices).toEqual([2, 3, 6]);
    expect(view.chartText).toBe('[2] (2026-01-05) Weight (kg): 70 kg\n[3] Allergy: Penicillin\n[6] (2026-01-03) Weight (kg): 68 kg\n');
    expect(reasons(view.included)).toEqual({ [records[1].stableId]: 'meaningful_overlap', [records[2].stableId]: 'mandatory', [records[5].stableId]: 'meaningful_overlap' });
    expect(view.excluded).toEqual([
      { stableId: records[0].stableId, reason: 'zero_relevance' },
      { stableId: records[3].stableId, reason: 'token_budget_after_meaningful_overlap' },
      { stableId: records[4].stableId, reason: 'zero_relevance' },
    ]);
    expect(view.inputTokens).toBeLessThanOrEqual(limit);
  });

  test('a 1000-token window admits only mandatory + meaningful_overlap, with ONE record-cost call', async () => {
    const records: EvidenceRecord[] = [rec('Allergy: Sulfa drugs cause rash')];
    for (let i = 0; i < 60; i++) records.push(rec(`Drug order: medicine${i} ${filler(15)}`, { date: dayOf(400 - i) }));
    for (let i = 0; i < 300; i++) records.push(rec(`Finding — Blood pressure ${filler(40)}`, { date: dayOf(1000 - i) }));
    const { view, tok } = await select(ledgerOf(records), 'Which medications is she on?', 1000);
    expect(new Set(view.included.map((i) => i.reason))).toEqual(new Set(['mandatory', 'meaningful_overlap']));
    expect(view.inputTokens).toBeLessThanOrEqual(1000);
    expect(tok.calls.costs).toBe(1);
    expect(view.recordCostCalls).toBe(1);
    // Sub-linear exact counts: eligible, mandatory-only, one packing — whatever the chart size.
    expect(view.measureCalls).toBe(3);
    expect(view.excluded.some((e) => e.reason === 'token_budget_after_recent_core')).toBe(true);
  });

  test('a large ranked record does not block smaller later evidence', async () => {
    const big = rec(`Weight (kg): 90 kg ${filler(500)}`, { date: '2026-02-01' });
    const small = [rec('Weight (kg): 70 kg', { date: '2026-01-01' }), rec('Weight (kg): 71 kg', { date: '2025-12-01' })];
    const { view } = await select(ledgerOf([big, ...small, rec('Unrelated')]), 'weight?', 100);
    expect(view.records).toEqual(small);
    expect(reasons(view.excluded)[big.stableId]).toBe('token_budget_after_meaningful_overlap');
  });

  test('byte-large / token-small records survive', async () => {
    const wide = rec(`Weight (kg): ${'x'.repeat(20_000)}`, { date: '2026-01-01' });
    const { view } = await select(ledgerOf([wide, rec('Unrelated')]), 'weight?', 40);
    expect(view.records).toEqual([wide]);
  });

  test('an underestimated top record does not strand later evidence', async () => {
    const top = rec(`Weight (kg): 90 kg UNDERCOUNTED ${filler(300)}`, { date: '2026-02-01' });
    const later = [rec('Weight (kg): 70 kg', { date: '2026-01-01' }), rec('Weight (kg): 71 kg', { date: '2025-12-01' })];
    const tok = fakeTokenizer((line) => (line.includes('UNDERCOUNTED') ? 1 : words(line)));
    const { view } = await select(ledgerOf([top, ...later, rec('Unrelated')]), 'weight?', 100, tok);
    expect(view.records).toEqual(later);
    // Batch 1 is the top record alone (its bytes estimate the whole budget); its undercount leaves
    // a gap, so batch 2 costs the small records that can fill it (record-costs.ts).
    expect(view.recordCostCalls).toBe(2);
    // eligible, mandatory-only, top alone, trial 2 (trial 1 packed every eligible record: reused).
    expect(view.measureCalls).toBe(4);
  });

  test('underestimated costs shrink the unit budget until the exact count fits', async () => {
    const records = Array.from({ length: 20 }, (_, i) => rec(`Weight (kg): ${60 + i} kg ${filler(8)}`, { date: dayOf(100 - i) }));
    const tok = fakeTokenizer((line) => Math.ceil(words(line) / 2));
    const { view } = await select(ledgerOf([...records, rec('Unrelated')]), 'weight?', 120, tok);
    expect(view.inputTokens).toBeLessThanOrEqual(120);
    expect(view.records.length).toBeGreaterThan(0);
    expect(view.measureCalls).toBeLessThanOrEqual(3 + 2 * 3);
  });

  test('when nothing fits only mandatory records remain', async () => {
    const allergy = rec('Allergy: Penicillin');
    const tok = fakeTokenizer(() => 1); // every cost underestimated: packing never verifies
    const records = [allergy, ...Array.from({ length: 3 }, (_, i) => rec(`Weight ${filler(50)}`, { date: dayOf(i) }))];
    const { view } = await select(ledgerOf([...records, rec('Unrelated')]), 'weight?', OVERHEAD + 3 + 10, tok);
    expect(view.records).toEqual([allergy]);
    expect(view.excluded.filter((e) => e.reason === 'token_budget_after_meaningful_overlap')).toHaveLength(3);
  });

  test('selected records render in canonical chart order with their dates and original indices', async () => {
    const ledger = parseChart(
      ['[1] (2026-01-05) Weight (kg): 70 kg', '[2] Note: unrelated', '[3] Weight (kg): 71 kg', '[4] (2025-01-01) KnowledgeX: nothing'].join('\n'),
      { maxRecords: 10 },
    );
    ledger.records.push(rec('Weight guidance text', { resourceType: 'KnowledgeReference', source: 'knowledge-base' }));
    const { view } = await select(ledger, 'weight', 10_000, fakeTokenizer(), { recentCoreLimit: 0 });
    expect(view.chartText).toBe(
      '[1] (2026-01-05) Weight (kg): 70 kg\n[3] (2026-01-05) Weight (kg): 71 kg\n[5] KnowledgeReference (source: knowledge-base): Weight guidance text\n',
    );
    expect(view.recordIndices).toEqual([1, 3, 5]);
  });

  test('zero-relevance records are never admitted, even with room to spare', async () => {
    const records = [rec('Weight: 70 kg', { date: '2026-01-01' }), rec('Program enrollment')];
    const { view } = await select(ledgerOf(records), 'weight', 1_000_000);
    expect(view.mode).toBe('selected');
    expect(view.records).toEqual([records[0]]);
    expect(view.excluded).toEqual([{ stableId: records[1].stableId, reason: 'zero_relevance' }]);
  });

  test('deterministic for identical input', async () => {
    const build = () => {
      seq = 1000;
      return ledgerOf(Array.from({ length: 80 }, (_, i) => rec(`${i % 3 ? 'Weight' : 'Visit'} ${filler(i % 7)}`, { date: dayOf(i % 11), sourcePriority: i % 2 ? 10 : 50 })));
    };
    const a = (await select(build(), 'weight at the visit', 300)).view;
    const b = (await select(build(), 'weight at the visit', 300)).view;
    expect(a).toEqual(b);
  });
});

describe('insufficient_context', () => {
  test.each<[string, number]>([
    ['input limit zero', 0],
    ['input limit negative', -5],
  ])('%s: no measurement at all', async (_name, limit) => {
    const tok = fakeTokenizer();
    const err = await insufficient(select(ledgerOf([rec('Allergy: x', { stableId: 'a' })]), 'q', limit, tok));
    expect(err.code).toBe('insufficient_context');
    expect(err.extra.source).toBe('selector');
    expect(err.extra.mandatory_ids).toEqual(['a']);
    expect(tok.calls.measure).toBe(0);
  });

  test('mandatory overflow names the mandatory ids', async () => {
    const records = [
      rec(`Allergy: Penicillin ${filler(60)}`, { stableId: 'inline:1' }),
      rec('Weight: 70 kg', { stableId: 'inline:2', date: '2026-01-01' }),
      rec('Reaction', { stableId: 'qs:1', resourceType: 'AllergyIntolerance' }),
      rec('Patient: x', { stableId: 'qs:2', sliceTier: 'mandatory' }),
      rec('Flagged', { stableId: 'qs:3', metadata: { mandatory_context: true } }),
    ];
    const err = await insufficient(select(ledgerOf(records), 'weight', 50));
    expect(err.status).toBe(422);
    expect(err.extra).toMatchObject({ source: 'selector', mandatoryIds: ['inline:1', 'qs:1', 'qs:2', 'qs:3'], mandatory_ids: ['inline:1', 'qs:1', 'qs:2', 'qs:3'] });
  });
});

// ---- ranking tiers --------------------------------------------------------------------------

describe('recent core', () => {
  test('bounded by the limit and deterministic: the oldest fall to zero_relevance', async () => {
    const records = Array.from({ length: 40 }, (_, i) => rec(`Finding ${i}`, { date: dayOf(100 - i) }));
    const { view } = await select(ledgerOf(records), 'unrelated question', 1_000_000);
    expect(view.records).toEqual(records.slice(0, 32));
    expect(new Set(view.included.map((i) => i.reason))).toEqual(new Set(['recent_core']));
    expect(view.excluded.map((e) => e.reason)).toEqual(Array(8).fill('zero_relevance'));
    const small = await select(ledgerOf(records), 'unrelated question', 1_000_000, fakeTokenizer(), { recentCoreLimit: 5 });
    expect(small.view.records).toEqual(records.slice(0, 5));
  });

  test.each<[string, EvidenceRecord[], string]>([
    ['active conditions come first', [rec('Finding new', { stableId: 'new', date: '2026-01-01' }), rec('Condition: Asthma. status: active', { stableId: 'cond', date: '2010-01-01' })], 'cond'],
    ['typed condition with active status', [rec('Finding new', { stableId: 'new', date: '2026-01-01' }), rec('Asthma, status: active', { stableId: 'cond', resourceType: 'condition', date: '2010-01-01' })], 'cond'],
    ['recency uses clinicalDate over date', [rec('Finding a', { stableId: 'a', date: '2026-01-01', clinicalDate: '2001-01-01' }), rec('Finding b', { stableId: 'b', date: '2020-01-01' })], 'b'],
    ['higher source priority breaks a recency tie', [rec('Finding a', { stableId: 'a', date: '2020-01-01' }), rec('Finding b', { stableId: 'b', date: '2020-01-01', sourcePriority: 50 })], 'b'],
    ['stable id breaks a full tie', [rec('Finding b', { stableId: 'b', date: '2020-01-01' }), rec('Finding a', { stableId: 'a', date: '2020-01-01' })], 'a'],
  ])('%s', async (_name, records, first) => {
    const ranking = rankRecords(ledgerOf(records), 'unrelated', 1);
    expect(ranking.ranked.map((e) => e.record.stableId)).toEqual([first]);
    expect(ranking.ranked[0].reason).toBe(first === 'cond' ? 'active_condition' : 'recent_core');
  });

  test('undated and knowledge records are never core', () => {
    const records = [rec('Finding undated'), rec('Guide', { resourceType: 'KnowledgeReference', date: '2026-01-01' })];
    expect(rankRecords(ledgerOf(records), 'unrelated').ranked).toEqual([]);
  });
});

describe('tier order', () => {
  const build = () => [
    rec('Finding core', { stableId: 'core', date: '2026-03-01' }),
    rec('Finding ranked', { stableId: 'ranked', date: '2020-01-01', querystoreRank: 1 }),
    rec('Weight: 70 kg', { stableId: 'overlap', date: '2019-01-01' }),
    rec('Order id: 77 weight', { stableId: 'exact', date: '2018-01-01' }),
    rec('Allergy: nuts', { stableId: 'mand' }),
  ];

  test('exact > overlap > querystore rank > recent core', () => {
    const { ranked, mandatory } = rankRecords(ledgerOf(build()), 'weight for order id: 77');
    expect(mandatory.map((e) => e.record.stableId)).toEqual(['mand']);
    expect(ranked.map((e) => [e.record.stableId, e.reason])).toEqual([
      ['exact', 'exact_match'], ['overlap', 'meaningful_overlap'], ['ranked', 'querystore_ranked'], ['core', 'recent_core'],
    ]);
  });

  test('ranked records sit above the recent core under a tight budget', async () => {
    const records = build();
    const limit = OVERHEAD + words('[5] Allergy: nuts') + words('[3] (2019-01-01) Weight: 70 kg') + words('[2] (2020-01-01) Finding ranked');
    const { view } = await select(ledgerOf(records), 'weight', limit);
    expect(view.recordIndices).toEqual([2, 3, 5]);
    expect(reasons(view.excluded)).toEqual({ core: 'token_budget_after_recent_core', exact: 'token_budget_after_meaningful_overlap' });
  });

  test('overlap sorts by (-overlap, -recency, -priority, id)', () => {
    const records = [
      rec('Weight', { stableId: 'w1', date: '2026-01-01' }),
      rec('Weight and height', { stableId: 'w2', date: '2020-01-01' }),
      rec('Weight', { stableId: 'w3', date: '2026-01-01', sourcePriority: 50 }),
    ];
    expect(rankRecords(ledgerOf(records), 'weight and height').ranked.map((e) => e.record.stableId)).toEqual(['w2', 'w3', 'w1']);
  });

  test('slice-selected records are never zero-relevance, and the core is off when slices exist', async () => {
    const records = [
      rec('Finding recent', { stableId: 'recent', date: '2026-03-01' }),
      rec('Hemoglobin 12', { stableId: 'sim', sliceTier: 'similarity' }),
      rec('Viral load 40', { stableId: 'typed', sliceTier: 'typed' }),
    ];
    const { view } = await select(ledgerOf(records), 'anaemia?', 1_000_000);
    expect(reasons(view.included)).toEqual({ sim: 'slice_similarity', typed: 'slice_typed' });
    expect(reasons(view.excluded)).toEqual({ recent: 'zero_relevance' });
    expect(rankRecords(ledgerOf(records), 'anaemia?').ranked.map((e) => e.record.stableId)).toEqual(['typed', 'sim']);
  });
});

describe('rendering', () => {
  test.each<[string, EvidenceRecord, number, string]>([
    ['dated record', rec('Weight: 70 kg', { date: '2026-01-01' }), 4, '[4] (2026-01-01) Weight: 70 kg'],
    ['undated record', rec('Note'), 2, '[2] Note'],
    ['knowledge reference', rec('WHO: do x', { resourceType: 'KnowledgeReference', source: 'knowledge-base' }), 9, '[9] KnowledgeReference (source: knowledge-base): WHO: do x'],
  ])('%s', (_name, record, index, line) => expect(renderRecordLine(record, index)).toBe(line));
});

describe('contextSummary (context_view.v1)', () => {
  const records = [rec('Weight: 70', { stableId: 'a', date: '2026-01-01' }), rec('Program', { stableId: 'b' })];
  const ledger = ledgerOf(records);

  test('selected view', async () => {
    const { view } = await select(ledger, 'weight', 1000);
    const history = { dropped_turns: ['turn:1'], stripped_citation_tokens: 2, fixed_input_tokens: 321 };
    expect(contextSummary(view, ledger, { exactTokens: true, history, derivedContextChars: 12 })).toEqual({
      schema_version: 'context_view.v1', sources: ['inline'], ledger_records: 2, records_by_source: { inline: 2 }, selection_mode: 'selected',
      included_ids: ['a'], included: [{ source_id: 'a', reason: 'meaningful_overlap' }], excluded: [{ source_id: 'b', reason: 'zero_relevance' }],
      input_tokens: view.inputTokens, input_limit: 1000, history, derived_context_chars: 12,
    });
  });

  test('non-exact profiles report a full view with 0/0', () => {
    const s = contextSummary(null, ledger, { exactTokens: false });
    expect(s).toMatchObject({ selection_mode: 'full', included_ids: ['a', 'b'], input_tokens: 0, input_limit: 0, history: null, derived_context_chars: 0 });
  });

  test('no view ⇒ none', () => {
    expect(contextSummary(null, ledgerOf([]), { exactTokens: true })).toMatchObject({ selection_mode: 'none', included_ids: [], input_tokens: null, input_limit: null });
  });
});
