/**
 * Resolution of ranked hits and slice rows against the ledger (hub-contract §5.4 "Ranked hits", "Slice
 * tiers" and the Target: identity AND content digest), and annotation of the evidence records.
 */
import { createHash } from 'node:crypto';
import { rankRecords } from '../../../../server/context/ranking';
import {
  annotate,
  annotateLedger,
  contentDigest,
  identityKey,
  LedgerLookup,
  resolveRanked,
  resolveSignals,
  resolveSlice,
  sameContent,
  SLICE_TIER_ORDER,
} from '../../../../server/context/sources/querystore/resolve';
import { toEvidenceRecords, toLedger } from '../../../../server/context/sources/querystore/serialize';
import type { QuerystoreRecord } from '../../../../server/context/sources/querystore/types';
import type { EvidenceRecord, SliceTier } from '../../../../server/context/types';

function qs(uuid: string, over: Partial<QuerystoreRecord> = {}): QuerystoreRecord {
  return {
    resourceType: 'obs',
    resourceUuid: uuid,
    date: '2026-01-15',
    clinicalDate: '2026-01-15',
    dateKind: 'clinical_event',
    text: `Finding — ${uuid}: 1 unit`,
    metadata: { concept_name: uuid, units: 'unit' },
    lastModified: '2026-01-16T12:00:00Z',
    ...over,
  };
}

const LEDGER: QuerystoreRecord[] = ['a', 'b', 'c', 'd', 'e'].map((u) => qs(u));
const EVIDENCE = toEvidenceRecords(LEDGER);
const hit = (uuid: string, rank: number, over: Partial<QuerystoreRecord> = {}) => ({ ...qs(uuid, over), rank });
const row = (uuid: string, tier: SliceTier, over: Partial<QuerystoreRecord> = {}) => ({ ...qs(uuid, over), tier });
const key = (uuid: string) => identityKey('obs', uuid);
const entries = <V>(m: ReadonlyMap<string, V>) => [...m].map(([k, v]) => [JSON.parse(k)[1] as string, v]);

describe('contentDigest', () => {
  const base = qs('a', { metadata: { b: 1, a: { y: 2, x: [1, { q: 1, p: 2 }] } } });

  test('SHA-256 hex of the sorted-key JSON of the content fields', () => {
    const canonical =
      '{"clinicalDate":"2026-01-15","date":"2026-01-15","dateKind":"clinical_event","lastModified":"2026-01-16T12:00:00Z",' +
      '"metadata":{"a":{"x":[1,{"p":2,"q":1}],"y":2},"b":1},"resourceType":"obs","resourceUuid":"a","text":"Finding — a: 1 unit"}';
    expect(contentDigest(base)).toBe(createHash('sha256').update(canonical, 'utf8').digest('hex'));
  });

  test.each<[string, QuerystoreRecord]>([
    ['key order (any depth)', { ...base, metadata: { a: { x: [1, { p: 2, q: 1 }], y: 2 }, b: 1 } }],
    ['rank', { ...base, rank: 3 }],
    ['tier', { ...base, tier: 'panel' }],
  ])('unchanged by %s', (_name, other) => expect(contentDigest(other)).toBe(contentDigest(base)));

  test('an absent optional field digests as null', () => {
    const withNulls = qs('a', { clinicalDate: null, dateKind: null, lastModified: null });
    const { clinicalDate: _c, dateKind: _k, lastModified: _l, ...absent } = withNulls;
    expect(contentDigest(absent)).toBe(contentDigest(withNulls));
  });

  test.each<[string, Partial<QuerystoreRecord>]>([
    ['resourceType', { resourceType: 'drug_order' }],
    ['resourceUuid', { resourceUuid: 'z' }],
    ['date', { date: '2026-01-14' }],
    ['clinicalDate', { clinicalDate: null }],
    ['dateKind', { dateKind: 'administrative' }],
    ['text', { text: 'Finding — a: 2 unit' }],
    ['metadata', { metadata: { b: 2, a: { y: 2, x: [1, { q: 1, p: 2 }] } } }],
    ['lastModified', { lastModified: '2026-01-17T00:00:00Z' }],
  ])('changed by %s', (_name, over) => expect(contentDigest({ ...base, ...over })).not.toBe(contentDigest(base)));
});

describe('resolveRanked', () => {
  test.each<[string, QuerystoreRecord[], Array<[string, number]>, Array<[string, string, string]>]>([
    ['all hits resolve, numbered by rank', [hit('c', 1), hit('a', 2), hit('e', 3)], [['c', 1], ['a', 2], ['e', 3]], []],
    ['rank order, not response order', [hit('e', 3), hit('c', 1), hit('a', 2)], [['c', 1], ['a', 2], ['e', 3]], []],
    ['no rank field: response order', [qs('b'), qs('d')], [['b', 1], ['d', 2]], []],
    ['unknown identity dropped, no gap', [hit('c', 1), hit('zz', 2), hit('a', 3)], [['c', 1], ['a', 2]], [['obs', 'zz', 'not_in_ledger']]],
    // The Target: the same lastModified is not enough when the content differs.
    ['same lastModified, other text', [hit('c', 1, { text: 'edited' }), hit('a', 2)], [['a', 1]], [['obs', 'c', 'content_differs']]],
    ['other lastModified', [hit('c', 1, { lastModified: '2026-02-01T00:00:00Z' })], [], [['obs', 'c', 'content_differs']]],
    ['other type, same uuid', [hit('c', 1, { resourceType: 'drug_order' })], [], [['drug_order', 'c', 'not_in_ledger']]],
    ['duplicate hit counted once, at its best rank', [hit('c', 2), hit('a', 1), hit('c', 3), hit('b', 4)], [['a', 1], ['c', 2], ['b', 3]], []],
    ['no hits', [], [], []],
  ])('%s', (_name, hits, ranks, unresolved) => {
    for (const ledger of [LEDGER, EVIDENCE, new LedgerLookup(LEDGER)]) {
      const r = resolveRanked(ledger, hits);
      expect(entries(r.ranks)).toEqual(ranks);
      expect(r.unresolved).toEqual(unresolved.map(([resourceType, resourceUuid, reason]) => ({ resourceType, resourceUuid, reason })));
    }
  });

  test('refresh once and retry: what the refreshed ledger holds resolves, the rest is dropped', () => {
    const hits = [hit('new', 1), hit('c', 2, { text: 'edited' }), hit('gone', 3), hit('a', 4)];
    const first = resolveRanked(EVIDENCE, hits);
    expect(entries(first.ranks)).toEqual([['a', 1]]);
    expect(first.unresolved.map((u) => u.resourceUuid)).toEqual(['new', 'c', 'gone']);
    const refreshed = toEvidenceRecords([qs('new'), qs('c', { text: 'edited' }), ...LEDGER.filter((r) => r.resourceUuid !== 'c')]);
    const second = resolveRanked(refreshed, hits);
    expect(entries(second.ranks)).toEqual([['new', 1], ['c', 2], ['a', 3]]);
    expect(second.unresolved).toEqual([{ resourceType: 'obs', resourceUuid: 'gone', reason: 'not_in_ledger' }]);
  });

  test('evidence records of other sources are not the QueryStore ledger', () => {
    const kb: EvidenceRecord = { ...EVIDENCE[0], stableId: 'knowledge-base:a', source: 'knowledge-base' };
    expect(resolveRanked([kb], [hit('a', 1)]).unresolved).toEqual([{ resourceType: 'obs', resourceUuid: 'a', reason: 'not_in_ledger' }]);
  });
});

describe('resolveSlice', () => {
  test.each<[string, QuerystoreRecord[], Array<[string, SliceTier]>, string[], string[]]>([
    ['one tier per identity', [row('a', 'mandatory'), row('b', 'typed'), row('c', 'panel')], [['a', 'mandatory'], ['b', 'typed'], ['c', 'panel']], [], []],
    ['highest tier wins (low first)', [row('a', 'panel'), row('a', 'similarity'), row('a', 'typed'), row('a', 'mandatory')], [['a', 'mandatory']], [], []],
    ['highest tier wins (high first)', [row('a', 'exact'), row('a', 'recency_anchor'), row('a', 'panel')], [['a', 'exact']], [], []],
    ['similarity outranks panel', [row('b', 'panel'), row('b', 'similarity')], [['b', 'similarity']], [], []],
    ['stale row dropped', [row('a', 'typed', { text: 'edited' }), row('b', 'typed')], [['b', 'typed']], ['a'], []],
    ['unknown identity dropped', [row('zz', 'similarity'), row('b', 'typed')], [['b', 'typed']], ['zz'], []],
    ['a stale row never changes a resolved tier', [row('a', 'typed'), row('a', 'mandatory', { lastModified: null })], [['a', 'typed']], [], []],
    ['unresolved mandatory reported by stable id', [row('zz', 'similarity'), row('zz', 'mandatory'), row('yy', 'typed')], [], ['zz', 'yy'], ['querystore:obs:zz']],
  ])('%s', (_name, rows, tiers, unresolved, mandatory) => {
    for (const ledger of [LEDGER, EVIDENCE]) {
      const r = resolveSlice(ledger, rows);
      expect(entries(r.tiers)).toEqual(tiers);
      expect(r.unresolved.map((u) => u.resourceUuid)).toEqual(unresolved);
      expect(r.unresolvedMandatory).toEqual(mandatory);
      expect(r.unknownTierRows).toBe(0);
    }
  });

  test('every permutation of tiers gives the highest', () => {
    const permutations = (xs: readonly SliceTier[]): SliceTier[][] =>
      xs.length <= 1 ? [[...xs]] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (const order of permutations(SLICE_TIER_ORDER)) {
      for (let n = 1; n <= order.length; n++) {
        const subset = order.slice(0, n);
        const best = SLICE_TIER_ORDER.find((t) => subset.includes(t));
        expect(resolveSlice(LEDGER, subset.map((t) => row('a', t))).tiers.get(key('a'))).toBe(best);
      }
    }
  });

  test('rows without a known tier are counted, never trusted', () => {
    const rows = [{ ...qs('a'), tier: 'bogus' as SliceTier }, qs('b'), row('c', 'typed')];
    const r = resolveSlice(LEDGER, rows);
    expect(entries(r.tiers)).toEqual([['c', 'typed']]);
    expect(r.unknownTierRows).toBe(2);
    expect(r.unresolved).toEqual([]);
  });

  test("the tier order is the selector's ranking order", () => {
    const records = toEvidenceRecords(LEDGER.concat(qs('f'))).reverse().map((r, i) => ({ ...r, sliceTier: [...SLICE_TIER_ORDER].reverse()[i] }));
    const ledger = { records, originalText: '', preamble: '', sources: ['querystore'] };
    const ranked = rankRecords(ledger, 'zzz unrelated').ranked.map((e) => e.record.sliceTier);
    // The mandatory tier is tier 1 of its own; the rest rank in slice order.
    expect(['mandatory', ...ranked]).toEqual(SLICE_TIER_ORDER);
  });
});

describe('annotate', () => {
  const ledger = toLedger(LEDGER.map((r, i) => (i === 1 ? { ...r, clinicalDate: null, dateKind: 'administrative' as const } : r)));

  test('new records, ledger order, every field copied, signals set', () => {
    const ranks = new Map([[key('c'), 1], [key('a'), 2]]);
    const tiers = new Map<string, SliceTier>([[key('b'), 'mandatory'], [key('c'), 'similarity']]);
    const out = annotate(ledger.records, { ranks, tiers });
    expect(out).toHaveLength(ledger.records.length);
    expect(out.map((r) => r.stableId)).toEqual(ledger.records.map((r) => r.stableId));
    out.forEach((r, i) => {
      expect(r).not.toBe(ledger.records[i]);
      const { querystoreRank, sliceTier, ...rest } = r;
      const { querystoreRank: _q, sliceTier: _s, ...before } = ledger.records[i];
      expect(rest).toEqual(before);
      expect([querystoreRank, sliceTier]).toEqual([ranks.get(key(r.resourceUuid!)) ?? null, tiers.get(key(r.resourceUuid!)) ?? null]);
    });
    expect(out[1]).toMatchObject({ clinicalDate: null, dateKind: 'administrative', sliceTier: 'mandatory', mandatory: false });
    // Inputs untouched.
    expect(ledger.records.every((r) => r.querystoreRank === null && r.sliceTier === null)).toBe(true);
  });

  test("a previous turn's signals never stick", () => {
    const once = annotate(ledger.records, { ranks: new Map([[key('a'), 1]]), tiers: new Map([[key('a'), 'typed']]) });
    const again = annotate(once, { tiers: new Map([[key('b'), 'panel']]) });
    expect(again.map((r) => [r.querystoreRank, r.sliceTier])).toEqual([[null, null], [null, 'panel'], [null, null], [null, null], [null, null]]);
  });

  test('records of other sources are copied unchanged', () => {
    const kb: EvidenceRecord = {
      stableId: 'knowledge-base:x', source: 'knowledge-base', sourcePriority: 20, resourceType: 'KnowledgeReference', resourceUuid: 'a',
      date: null, text: 'WHO: x', mandatory: false, querystoreRank: 7, sliceTier: 'typed', metadata: {}, raw: {},
    };
    const [out] = annotate([kb], { ranks: new Map([[identityKey('KnowledgeReference', 'a'), 1]]) });
    expect(out).toEqual(kb);
    expect(out).not.toBe(kb);
  });

  test('annotateLedger keeps the chart text and the preamble', () => {
    const out = annotateLedger(ledger, { tiers: new Map([[key('a'), 'exact']]) });
    expect(out.originalText).toBe(ledger.originalText);
    expect(out.records[0].sliceTier).toBe('exact');
    expect(out.sources).toEqual(['querystore']);
  });
});

describe('resolveSignals', () => {
  test('one unresolved list over both signals, each identity once', () => {
    const r = resolveSignals(EVIDENCE, {
      hits: [hit('zz', 1), hit('a', 2), hit('c', 3, { text: 'edited' })],
      rows: [row('zz', 'mandatory'), row('b', 'typed'), row('yy', 'panel')],
    });
    expect(entries(r.ranks)).toEqual([['a', 1]]);
    expect(entries(r.tiers)).toEqual([['b', 'typed']]);
    expect(r.unresolved.map((u) => [u.resourceUuid, u.reason])).toEqual([['zz', 'not_in_ledger'], ['c', 'content_differs'], ['yy', 'not_in_ledger']]);
    expect(r.unresolvedMandatory).toEqual(['querystore:obs:zz']);
  });

  test('no signals, nothing unresolved', () => {
    expect(resolveSignals(LEDGER, {})).toEqual({ ranks: new Map(), tiers: new Map(), unresolved: [], unresolvedMandatory: [] });
  });
});

describe('sameContent agrees with contentDigest', () => {
  const base: QuerystoreRecord = {
    resourceType: 'obs', resourceUuid: 'u-1', date: '2026-01-15', clinicalDate: '2026-01-15', dateKind: 'clinical_event',
    text: 'Weight (kg): 70 kg', metadata: { concept_name: 'Weight (kg)', value_numeric: 70, units: 'kg', nested: { a: 1, b: [1, 2] } }, lastModified: '2026-01-16T12:00:00Z',
  };
  const variants: Array<[string, Partial<QuerystoreRecord>]> = [
    ['identical', {}],
    ['metadata keys in another order', { metadata: { units: 'kg', nested: { b: [1, 2], a: 1 }, value_numeric: 70, concept_name: 'Weight (kg)' } }],
    ['a metadata value differs', { metadata: { ...base.metadata, value_numeric: 71 } }],
    ['a nested metadata value differs', { metadata: { ...base.metadata, nested: { a: 1, b: [2, 1] } } }],
    ['text differs', { text: 'Weight (kg): 71 kg' }],
    ['lastModified differs', { lastModified: '2026-01-17T12:00:00Z' }],
    ['lastModified absent vs null', { lastModified: undefined }],
    ['clinicalDate null', { clinicalDate: null }],
    ['dateKind differs', { dateKind: 'administrative' }],
    ['date differs', { date: '2026-01-14' }],
    ['rank and tier do not count', { rank: 3, tier: 'mandatory' }],
    ['type differs', { resourceType: 'Obs' }],
  ];
  test.each(variants)('%s', (_name, change) => {
    const other = { ...base, ...change } as QuerystoreRecord;
    expect(sameContent(base, other)).toBe(contentDigest(base) === contentDigest(other));
  });
});
