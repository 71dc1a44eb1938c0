/**
 * The sliced ranking (used for ledgers of more than 500 records) gives the same tiers and order as
 * `rankRecords`; the recent core's top-k pick equals sorting everything and taking the first k.
 */
import { LoopSlice } from '../../../server/event-loop';
import { parseChart } from '../../../server/context/inline-chart';
import { analyzeQuestion, scoreRecord, type RecordRelevance } from '../../../server/context/relevance';
import { firstInOrder, isActiveCondition, isMandatory, rankRecords, rankRecordsInSlices, recency, type Entry, type Ranking } from '../../../server/context/ranking';
import type { EvidenceLedger, EvidenceRecord, SliceTier } from '../../../server/context/types';
import { lcg, randomChart } from '../../support/random-chart';

const QUESTIONS = ['What is the latest weight?', 'weight and haemoglobin', 'order id: 3', '"Adult Visit"', 'allergies?', 'unrelated', 'WHO guidance on ART', 'Clinic 3 2026-03-02', ''];
const TIERS: readonly SliceTier[] = ['mandatory', 'exact', 'recency_anchor', 'typed', 'similarity', 'panel'];

/** Ledger records as inline parsing makes them, some with QueryStore's fields and other types. */
function randomRecords(rand: () => number): EvidenceRecord[] {
  const records = parseChart(randomChart(rand, Math.floor(rand() * 70)), { maxRecords: 10_000 }).records;
  return records.map((r) => {
    const x = rand();
    if (x < 0.05) return { ...r, sliceTier: TIERS[Math.floor(rand() * TIERS.length)] };
    if (x < 0.1) return { ...r, querystoreRank: Math.floor(rand() * 5) };
    if (x < 0.15) return { ...r, resourceType: ['Condition', 'AllergyIntolerance', 'KnowledgeReference', 'Observation'][Math.floor(rand() * 4)], clinicalDate: rand() < 0.5 ? '2025-01-02' : undefined };
    if (x < 0.2) return { ...r, sourcePriority: Math.floor(rand() * 20), stableId: `q:${Math.floor(rand() * 3)}` };
    return r;
  });
}

// ---- the former rankRecords (one pass, Map-keyed sort, full sort of the recent core), as the reference ----

const SLICE_ORDER: readonly SliceTier[] = ['mandatory', 'exact', 'recency_anchor', 'typed', 'similarity', 'panel'];
const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function byRelevance(scores: Map<Entry, number>) {
  const recencyOf = new Map<Entry, number>();
  const rec = (e: Entry) => recencyOf.get(e) ?? recencyOf.set(e, recency(e.record)).get(e)!;
  return (a: Entry, b: Entry): number =>
    (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || rec(b) - rec(a) || b.record.sourcePriority - a.record.sourcePriority || compareIds(a.record.stableId, b.record.stableId);
}

function localTier(record: EvidenceRecord, score: RecordRelevance | null): string {
  if (score === null) return 'mandatory';
  if (score.exact) return 'exact_match';
  if (score.overlap > 0) return 'meaningful_overlap';
  if (record.querystoreRank != null) return 'querystore_ranked';
  if (record.sliceTier) return `slice_${record.sliceTier}`;
  return 'zero_relevance';
}

function formerRank(ledger: EvidenceLedger, question: string, recentCoreLimit: number): Ranking {
  const q = analyzeQuestion(question);
  const entries: Entry[] = ledger.records.map((record, i) => ({ record, index: i + 1, reason: 'zero_relevance' }));
  const [mandatory, exact, overlap, qsRanked, sliced, rest]: Entry[][] = [[], [], [], [], [], []];
  const overlaps = new Map<Entry, number>();
  const buckets: Record<string, Entry[]> = { mandatory, exact_match: exact, meaningful_overlap: overlap, querystore_ranked: qsRanked };
  for (const e of entries) {
    const score = isMandatory(e.record) ? null : scoreRecord(q, e.record);
    overlaps.set(e, score?.overlap ?? 0);
    e.reason = localTier(e.record, score);
    if (e.reason === 'zero_relevance') rest.push(e);
    else (buckets[e.reason] ?? sliced).push(e);
  }
  exact.sort(byRelevance(overlaps));
  overlap.sort(byRelevance(overlaps));
  qsRanked.sort((a, b) => (a.record.querystoreRank ?? 0) - (b.record.querystoreRank ?? 0) || compareIds(a.record.stableId, b.record.stableId));
  sliced.sort((a, b) => SLICE_ORDER.indexOf(a.record.sliceTier!) - SLICE_ORDER.indexOf(b.record.sliceTier!) || a.index - b.index);
  let core: Entry[] = [];
  if (!ledger.records.some((r) => r.sliceTier)) {
    const keyed = rest
      .filter((e) => e.record.resourceType !== 'KnowledgeReference' && (e.record.clinicalDate ?? e.record.date))
      .map((e) => ({ e, active: isActiveCondition(e.record), recency: recency(e.record) }));
    keyed.sort((a, b) => Number(b.active) - Number(a.active) || b.recency - a.recency || b.e.record.sourcePriority - a.e.record.sourcePriority || compareIds(a.e.record.stableId, b.e.record.stableId));
    core = keyed.slice(0, Math.max(0, recentCoreLimit)).map((k) => {
      k.e.reason = k.active ? 'active_condition' : 'recent_core';
      return k.e;
    });
  }
  return { entries, mandatory, ranked: [...exact, ...overlap, ...qsRanked, ...sliced, ...core] };
}

/** Entries carry their records: compare ids, positions and reasons. */
const view = (r: Ranking) => ({
  entries: r.entries.map((e) => [e.record.stableId, e.index, e.reason]),
  mandatory: r.mandatory.map((e) => e.index),
  ranked: r.ranked.map((e) => e.index),
});

describe('rankRecords', () => {
  test('equals the former ranking on 1,500 random ledgers and questions', () => {
    const rand = lcg(31);
    for (let i = 0; i < 1500; i++) {
      const ledger = { records: randomRecords(rand), originalText: '', preamble: '', sources: ['inline'] };
      const question = QUESTIONS[Math.floor(rand() * QUESTIONS.length)];
      const limit = Math.floor(rand() * 12);
      expect({ i, question, limit, ...view(rankRecords(ledger, question, limit)) }).toEqual({ i, question, limit, ...view(formerRank(ledger, question, limit)) });
    }
  });
});

describe('rankRecordsInSlices', () => {
  test('equals rankRecords on 1,500 random ledgers and questions', async () => {
    const rand = lcg(23);
    for (let i = 0; i < 1500; i++) {
      const ledger = { records: randomRecords(rand), originalText: '', preamble: '', sources: ['inline'] };
      const question = QUESTIONS[Math.floor(rand() * QUESTIONS.length)];
      const limit = Math.floor(rand() * 12);
      const slice = new LoopSlice(0);
      const got = await rankRecordsInSlices(ledger, question, limit, slice, 1 + Math.floor(rand() * 9));
      expect({ i, question, limit, ...view(got) }).toEqual({ i, question, limit, ...view(rankRecords(ledger, question, limit)) });
    }
  });
});

describe('firstInOrder', () => {
  test('equals a stable sort and slice on 5,000 random lists with ties', () => {
    const rand = lcg(9);
    for (let i = 0; i < 5000; i++) {
      const items = Array.from({ length: Math.floor(rand() * 40) }, (_, id) => ({ id, key: Math.floor(rand() * 6) }));
      const limit = Math.floor(rand() * 12) - 1;
      const compare = (a: { key: number }, b: { key: number }) => a.key - b.key;
      expect(firstInOrder(items, limit, compare)).toEqual([...items].sort(compare).slice(0, Math.max(0, limit)));
    }
  });
});
