import { QuerystoreError, type LedgerPage } from '../../../../server/context/sources/querystore/types';
import {
  LEDGER_PAGE_LIMIT, LedgerAssembly, parseBody, toLedgerPage, toRankedHits, toRecord, toSliceRows,
} from '../../../../server/context/sources/querystore/wire';

const SECRET_TEXT = 'Secret note about patient-123';
const good = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  resourceType: 'obs', resourceUuid: 'u-1', date: '2026-01-01', clinicalDate: '2026-01-01', dateKind: 'clinical_event',
  text: SECRET_TEXT, metadata: { concept_name: 'Weight (kg)' }, lastModified: '2026-01-01T10:00:00.000+0000', ...over,
});
const without = (field: string): Record<string, unknown> => {
  const r = good();
  delete r[field];
  return r;
};

function caught(run: () => unknown): QuerystoreError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(QuerystoreError);
    return err as QuerystoreError;
  }
  throw new Error('expected a QuerystoreError');
}

/** The rejection names the problem and never a value. */
function expectContract(run: () => unknown, reason: RegExp, kind = 'contract'): void {
  const err = caught(run);
  expect(err.kind).toBe(kind);
  expect(err.message).toMatch(reason);
  expect(err.message).not.toContain(SECRET_TEXT);
  expect(err.message).not.toContain('patient-123');
  expect(err.message).not.toContain('u-1');
}

describe('parseBody', () => {
  test.each([
    ['malformed JSON', '{"results": [', /not valid JSON/],
    ['an array', '[]', /is an array, not a JSON object/],
    ['null', 'null', /is null, not a JSON object/],
    ['a string', '"patient-123"', /is a string, not a JSON object/],
    ['empty', '', /not valid JSON/],
  ])('rejects %s', (_name, text, reason) => expectContract(() => parseBody(text, 'ledger page 1'), reason));

  test('accepts an object and names where it was read in errors', () => {
    expect(parseBody('{"a":1}', 'x')).toEqual({ a: 1 });
    expect(caught(() => parseBody('{', 'ranked search')).message).toContain('(ranked search)');
  });
});

describe('toRecord', () => {
  test.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['a complete record', good(), {}],
    ['absent metadata as {}', without('metadata'), { metadata: {} }],
    ['null metadata as {}', good({ metadata: null }), { metadata: {} }],
    ['null dates', good({ date: null, clinicalDate: null }), { date: null, clinicalDate: null }],
    ['absent clinicalDate, dateKind, lastModified as null', (() => { const r = without('clinicalDate'); delete r.dateKind; delete r.lastModified; return r; })(), { clinicalDate: null, dateKind: null, lastModified: null }],
    ['an empty text', good({ text: '' }), { text: '' }],
    ['administrative and unknown dateKinds', good({ dateKind: 'administrative' }), { dateKind: 'administrative' }],
    ['unknown dateKind', good({ dateKind: 'unknown' }), { dateKind: 'unknown' }],
  ])('accepts %s', (_name, raw, want) => {
    expect(toRecord(raw, 'ledger page 1, record 1')).toEqual({ ...toRecord(good(), 'x'), ...want });
  });

  test('copies only known fields (an embedding never travels on)', () => {
    const rec = toRecord(good({ embedding: [0.1, 0.2], score: 3, rank: 2, tier: 'exact' }), 'x');
    expect(Object.keys(rec).sort()).toEqual(['clinicalDate', 'date', 'dateKind', 'lastModified', 'metadata', 'resourceType', 'resourceUuid', 'text']);
  });

  test.each<[string, unknown, RegExp]>([
    ['a non-object', 'patient-123', /the record is a string, not an object/],
    ['an array record', [good()], /the record is an array/],
    ['missing resourceType', without('resourceType'), /resourceType must be a non-blank string/],
    ['blank resourceType', good({ resourceType: '  ' }), /resourceType must be a non-blank string/],
    ['numeric resourceType', good({ resourceType: 7 }), /resourceType must be a non-blank string/],
    ['missing resourceUuid', without('resourceUuid'), /resourceUuid must be a non-blank string/],
    ['blank resourceUuid', good({ resourceUuid: '' }), /resourceUuid must be a non-blank string/],
    ['missing text', without('text'), /text must be a string \(it is missing\)/],
    ['numeric text', good({ text: 5 }), /text must be a string, not a number/],
    ['array metadata', good({ metadata: ['x'] }), /metadata must be an object, not an array/],
    ['string metadata', good({ metadata: SECRET_TEXT }), /metadata must be an object, not a string/],
    ['numeric date', good({ date: 20260101 }), /date must be a string or null, not a number/],
    ['object clinicalDate', good({ clinicalDate: {} }), /clinicalDate must be a string or null, not an object/],
    ['unknown dateKind', good({ dateKind: 'clinical' }), /dateKind must be clinical_event, administrative, unknown or null/],
    ['numeric lastModified', good({ lastModified: 1 }), /lastModified must be a string or null/],
  ])('rejects %s', (_name, raw, reason) => expectContract(() => toRecord(raw, 'ledger page 2, record 7'), reason));

  test('the position is in the message', () => {
    expect(caught(() => toRecord(without('resourceUuid'), 'ledger page 2, record 7')).message).toBe(
      'Malformed QueryStore response (ledger page 2, record 7): resourceUuid must be a non-blank string (it is missing).',
    );
  });
});

describe('toLedgerPage', () => {
  const page = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ results: [good()], totalCount: 1, links: [], snapshotId: 's-1', ...over });

  test('accepts a page and keeps the ETag', () => {
    expect(toLedgerPage(page(), '"abc"', 1)).toEqual({ results: [toRecord(good(), 'x')], totalCount: 1, snapshotId: 's-1', etag: '"abc"' });
    expect(toLedgerPage(page({ results: [], totalCount: 0 }), null, 2)).toEqual({ results: [], totalCount: 0, snapshotId: 's-1', etag: null });
    expect(toLedgerPage(page(), '  ', 1).etag).toBeNull();
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['missing results', (() => { const p = page(); delete p.results; return p; })(), /results must be an array \(it is missing\)/],
    ['object results', page({ results: {} }), /results must be an array, not an object/],
    ['missing totalCount', (() => { const p = page(); delete p.totalCount; return p; })(), /totalCount must be an integer of at least 0/],
    ['null totalCount', page({ totalCount: null }), /totalCount must be an integer/],
    ['negative totalCount', page({ totalCount: -1 }), /totalCount must be an integer/],
    ['fractional totalCount', page({ totalCount: 1.5 }), /totalCount must be an integer/],
    ['string totalCount', page({ totalCount: '1' }), /totalCount must be an integer/],
    ['missing snapshotId', (() => { const p = page(); delete p.snapshotId; return p; })(), /snapshotId must be a non-blank string/],
    ['blank snapshotId', page({ snapshotId: ' ' }), /snapshotId must be a non-blank string/],
    ['a bad record', page({ results: [good(), without('resourceType')] }), /\(ledger page 3, record 2\): resourceType/],
    ['an over-full page', page({ results: Array.from({ length: LEDGER_PAGE_LIMIT + 1 }, (_v, i) => good({ resourceUuid: `u-${i}` })), totalCount: 9999 }), /more than limit=500/],
  ])('rejects %s', (_name, body, reason) => expectContract(() => toLedgerPage(body, '"e"', 3), reason));
});

describe('ranked hits and slice rows', () => {
  test('ranked hits keep a 1-based rank and need no snapshot', () => {
    const hits = toRankedHits({ results: [good({ rank: 1 }), good({ resourceUuid: 'u-2' })], totalCount: null });
    expect(hits.map((h) => h.rank)).toEqual([1, undefined]);
  });

  test.each<[string, unknown, RegExp]>([
    ['rank 0', 0, /rank must be an integer of at least 1/],
    ['fractional rank', 1.5, /rank must be an integer/],
    ['string rank', '1', /rank must be an integer/],
  ])('ranked search rejects %s', (_name, rank, reason) => expectContract(() => toRankedHits({ results: [good({ rank })] }), reason));

  test('ranked search needs results', () => expectContract(() => toRankedHits({ totalCount: null }), /\(ranked search\): results must be an array/));

  test.each(['mandatory', 'exact', 'recency_anchor', 'typed', 'similarity', 'panel'])('slice accepts tier %s', (tier) => {
    expect(toSliceRows({ results: [good({ tier })] })[0].tier).toBe(tier);
  });

  test.each<[string, unknown]>([['a missing tier', undefined], ['an unknown tier', 'top'], ['a numeric tier', 1], ['a null tier', null]])(
    'slice rejects %s',
    (_name, tier) => expectContract(() => toSliceRows({ results: [good({ tier })] }), /\(context slice, record 1\): tier must be one of/),
  );
});

describe('LedgerAssembly', () => {
  const rec = (uuid: string) => toRecord(good({ resourceUuid: uuid }), 'x');
  const pageOf = (n: number, from: number, over: Partial<LedgerPage> = {}): LedgerPage => ({
    results: Array.from({ length: n }, (_v, i) => rec(`r-${from + i}`)), totalCount: 1203, snapshotId: 's-1', etag: null, ...over,
  });

  test('three pages of 1,203 records complete on the short page', () => {
    const a = new LedgerAssembly();
    a.add(pageOf(500, 0, { etag: '"e"' }), 100);
    expect([a.complete, a.nextStartIndex]).toEqual([false, 500]);
    a.add(pageOf(500, 500), 100);
    expect([a.complete, a.nextStartIndex]).toEqual([false, 1000]);
    a.add(pageOf(203, 1000), 50);
    expect(a.complete).toBe(true);
    const ledger = a.finish();
    expect({ ...ledger, records: ledger.records.length }).toEqual({ records: 1203, etag: '"e"', snapshotId: 's-1', pages: 3, bytes: 250 });
  });

  test('an exactly full last page completes on startIndex >= totalCount', () => {
    const a = new LedgerAssembly();
    a.add(pageOf(500, 0, { etag: '"e"', totalCount: 500 }), 1);
    expect(a.complete).toBe(true);
    expect(a.finish().records).toHaveLength(500);
  });

  test('an empty chart is one empty page', () => {
    const a = new LedgerAssembly();
    a.add(pageOf(0, 0, { etag: '"e"', totalCount: 0 }), 2);
    expect(a.complete).toBe(true);
    expect(a.finish()).toEqual({ records: [], etag: '"e"', snapshotId: 's-1', pages: 1, bytes: 2 });
  });

  test.each<[string, (a: LedgerAssembly) => void, RegExp, string?]>([
    ['a first page without ETag', (a) => a.add(pageOf(3, 0, { totalCount: 3 }), 1), /page 1\): the first page has no ETag header/],
    ['another snapshotId on a later page', (a) => { a.add(pageOf(500, 0, { etag: '"e"' }), 1); a.add(pageOf(500, 500, { snapshotId: 's-2' }), 1); },
      /chart changed while paging: ledger page 2 has another snapshotId/, 'inconsistent_snapshot'],
    ['a changed snapshot that also changed the total (still retryable)', (a) => { a.add(pageOf(500, 0, { etag: '"e"' }), 1); a.add(pageOf(500, 500, { snapshotId: 's-2', totalCount: 1204 }), 1); },
      /chart changed while paging/, 'inconsistent_snapshot'],
    ['a totalCount that changes', (a) => { a.add(pageOf(500, 0, { etag: '"e"' }), 1); a.add(pageOf(500, 500, { totalCount: 1300 }), 1); },
      /page 2\): totalCount changed between pages \(1203 on page 1, 1300 here\)/],
    ['a duplicate identity across pages', (a) => { a.add(pageOf(500, 0, { etag: '"e"' }), 1); a.add(pageOf(500, 499), 1); },
      /page 2, record 1\): the record repeats the identity of an earlier one \(resourceType obs\)/],
    ['a duplicate identity within a page', (a) => a.add({ ...pageOf(0, 0, { etag: '"e"' }), results: [rec('r-1'), rec('r-1')] }, 1),
      /page 1, record 2\): the record repeats/],
    ['a truncated ledger', (a) => { a.add(pageOf(500, 0, { etag: '"e"' }), 1); a.add(pageOf(20, 500), 1); a.finish(); },
      /truncated: 520 of totalCount=1203 records arrived/],
    ['more records than totalCount', (a) => { a.add(pageOf(5, 0, { etag: '"e"', totalCount: 3 }), 1); a.finish(); },
      /5 records arrived, more than totalCount=3/],
  ])('rejects %s', (_name, run, reason, kind = 'contract') => expectContract(() => run(new LedgerAssembly()), reason, kind));

  test('the same UUID under another resourceType is another record', () => {
    const a = new LedgerAssembly();
    a.add({ ...pageOf(0, 0, { etag: '"e"', totalCount: 2 }), results: [rec('same'), toRecord(good({ resourceType: 'encounter', resourceUuid: 'same' }), 'x')] }, 1);
    expect(a.finish().records).toHaveLength(2);
  });
});
