/**
 * The QueryStore source's policy (hub-contract §5.4 "Ranked hits", "Slice tiers", §12 "Ranked candidates"),
 * with a scripted in-memory QuerystoreApi and the real cache: one refresh at most, a failed refresh drops the
 * unresolved hits, nothing to resolve means no refresh, ranks among resolved hits, mandatory rows never
 * dropped, failures mapped to the client's codes, cancellation passed through.
 */
import { PatientLedgerCache } from '../../../../server/context/sources/querystore/cache';
import { querystoreSource } from '../../../../server/context/sources/querystore/source';
import { QuerystoreError, type LedgerFetchResult, type QuerystoreApi, type QuerystoreRecord } from '../../../../server/context/sources/querystore/types';
import type { ContextRequest } from '../../../../server/context/source';
import type { SourceReport } from '../../../../server/context/types';

const rec = (uuid: string, text: string, extra: Partial<QuerystoreRecord> = {}): QuerystoreRecord => ({
  resourceType: 'obs', resourceUuid: uuid, date: '2026-01-15', clinicalDate: '2026-01-15', dateKind: 'clinical_event', text, metadata: {}, lastModified: '2026-01-16T00:00:00Z', ...extra,
});
const CHART = [rec('u1', 'Weight (kg): 71 kg'), rec('u2', 'Weight (kg): 74 kg'), rec('u3', 'Allergy: Penicillin', { resourceType: 'allergy' })];

class ScriptedApi implements QuerystoreApi {
  readonly identity = 'http://qs.test/ws|svc';
  chart = CHART;
  etag = '"v1"';
  ledgerCalls: Array<string | undefined> = [];
  rankedCalls = 0;
  sliceCalls = 0;
  ledgerFailure: QuerystoreError | null = null;
  /** Ledger fetches after the first one fail (a refresh that fails). */
  failRefresh = false;
  hits: QuerystoreRecord[][] = [];
  rows: QuerystoreRecord[][] = [];
  rankedFailure: QuerystoreError | null = null;

  async fetchLedger(_patient: string, opts: { etag?: string; signal?: AbortSignal }): Promise<LedgerFetchResult> {
    this.ledgerCalls.push(opts.etag);
    if (opts.signal?.aborted) throw new QuerystoreError('aborted', 'cancelled');
    if (this.ledgerFailure) throw this.ledgerFailure;
    if (this.failRefresh && this.ledgerCalls.length > 1) throw new QuerystoreError('transport', 'QueryStore did not answer');
    if (opts.etag === this.etag) return { kind: 'not_modified' };
    return { kind: 'ledger', ledger: { records: this.chart, etag: this.etag, snapshotId: 'snap-1', pages: 1, bytes: 1000 } };
  }

  async rankedSearch(): Promise<QuerystoreRecord[]> {
    if (this.rankedFailure) throw this.rankedFailure;
    return this.hits[Math.min(this.rankedCalls++, this.hits.length - 1)] ?? [];
  }

  async contextSlice(): Promise<QuerystoreRecord[]> {
    return this.rows[Math.min(this.sliceCalls++, this.rows.length - 1)] ?? [];
  }

  async close(): Promise<void> {}
}

function setup() {
  const api = new ScriptedApi();
  const source = querystoreSource({ api, cache: new PatientLedgerCache({ maxEntries: 4, maxBytes: 1 << 20 }) });
  const reports: SourceReport[] = [];
  const request = (extra: Partial<ContextRequest> = {}): ContextRequest => ({
    messages: [], patient: 'p-1', sources: ['querystore'], supplementalSources: [], question: 'What is the latest weight?', explicit: false, report: (r) => reports.push(r), ...extra,
  });
  return { api, source, reports, request };
}

describe('querystore source', () => {
  test('hits that resolve get ranks among the resolved; nothing unresolved means no refresh', async () => {
    const { api, source, reports, request } = setup();
    api.hits = [[{ ...CHART[1], rank: 1 }, { ...CHART[0], rank: 2 }]];
    const ledger = await source.fetch(request());
    expect(ledger.records.map((r) => [r.stableId, r.querystoreRank])).toEqual([['querystore:obs:u1', 2], ['querystore:obs:u2', 1], ['querystore:allergy:u3', null]]);
    expect(api.ledgerCalls).toEqual([undefined]);
    expect(reports[0]).toMatchObject({ source: 'querystore', cache: 'miss', candidate_refresh: 'not_needed', ranked: { status: 'ok', rows: 2, resolved: 2, dropped: 0 } });
  });

  test('empty hits skip the refresh', async () => {
    const { api, source, reports, request } = setup();
    api.hits = [[]];
    await source.fetch(request());
    expect(api.ledgerCalls).toHaveLength(1);
    expect(api.rankedCalls).toBe(1);
    expect(reports[0].candidate_refresh).toBe('not_needed');
  });

  test('an unresolved hit triggers one refresh and one new search at most, then is dropped and counted', async () => {
    const { api, source, reports, request } = setup();
    const stale = { ...CHART[0], text: 'Weight (kg): 69 kg', rank: 1 };
    api.hits = [[stale, { ...CHART[1], rank: 2 }]];
    const ledger = await source.fetch(request());
    expect(api.ledgerCalls).toEqual([undefined, '"v1"']);
    expect(api.rankedCalls).toBe(2);
    expect(ledger.records.find((r) => r.resourceUuid === 'u1')!.querystoreRank).toBeNull();
    expect(ledger.records.find((r) => r.resourceUuid === 'u2')!.querystoreRank).toBe(1);
    expect(reports[0]).toMatchObject({ candidate_refresh: 'unchanged', ranked: { resolved: 1, dropped: 1 } });
  });

  test('the new search after a refresh resolves what the first did not', async () => {
    const { api, source, request } = setup();
    api.hits = [[{ ...CHART[0], text: 'Weight (kg): 69 kg', rank: 1 }], [{ ...CHART[0], rank: 1 }]];
    const ledger = await source.fetch(request());
    expect(ledger.records[0].querystoreRank).toBe(1);
  });

  test('a failed refresh drops the unresolved hits and keeps the validated ledger', async () => {
    const { api, source, reports, request } = setup();
    api.failRefresh = true;
    api.hits = [[{ ...CHART[0], text: 'changed', rank: 1 }]];
    const ledger = await source.fetch(request());
    expect(ledger.records).toHaveLength(3);
    expect(ledger.records.every((r) => r.querystoreRank === null)).toBe(true);
    expect(reports[0]).toMatchObject({ candidate_refresh: 'failed', ranked: { dropped: 1 } });
  });

  test('slice tiers annotate records; the highest wins; a mandatory row the chart lacks fails the turn naming it', async () => {
    const { api, source, request } = setup();
    api.rows = [[{ ...CHART[2], tier: 'mandatory' }, { ...CHART[0], tier: 'similarity' }, { ...CHART[0], tier: 'typed' }]];
    const ledger = await source.fetch(request());
    expect(ledger.records.map((r) => r.sliceTier)).toEqual(['typed', null, 'mandatory']);
    const lost = setup();
    lost.api.rows = [[{ ...rec('u9', 'Allergy: Sulfa', { resourceType: 'allergy' }), tier: 'mandatory' }]];
    await expect(lost.source.fetch(lost.request())).rejects.toMatchObject({ code: 'context_source_failed', extra: { source: 'querystore', mandatory_ids: ['querystore:allergy:u9'] } });
    expect(lost.api.sliceCalls).toBe(2);
    expect(lost.reports[0]).toMatchObject({ cache: 'miss', failure: 'unresolved_mandatory' });
  });

  test('a ranked-search failure degrades; the ledger still comes', async () => {
    const { api, source, reports, request } = setup();
    api.rankedFailure = new QuerystoreError('http', 'QueryStore failed (HTTP 500)', 500);
    const ledger = await source.fetch(request());
    expect(ledger.records).toHaveLength(3);
    expect(reports[0].ranked).toEqual({ status: 'failed', failure: 'http' });
  });

  test.each([
    ['transport', 'context_source_unavailable', new QuerystoreError('transport', 'QueryStore did not answer')],
    ['http 500', 'context_source_failed', new QuerystoreError('http', 'QueryStore failed (HTTP 500)', 500)],
    ['contract', 'context_source_failed', new QuerystoreError('contract', 'page 2 is missing snapshotId')],
    ['inconsistent snapshot', 'context_source_failed', new QuerystoreError('inconsistent_snapshot', 'the chart changed while it was read')],
  ])('a ledger failure (%s) is %s, with the patient named for the caller and traced as failed', async (_name, code, failure) => {
    const { api, source, reports, request } = setup();
    api.ledgerFailure = failure;
    await expect(source.fetch(request())).rejects.toMatchObject({ code, status: 503, message: expect.stringContaining("patient 'p-1'"), extra: { source: 'querystore', querystore_failure: failure.kind } });
    expect(reports).toEqual([expect.objectContaining({ source: 'querystore', cache: 'failed', failure: failure.kind })]);
  });

  test('without a patient: an empty ledger, or an error when the caller named the source', async () => {
    const { source, request } = setup();
    expect((await source.fetch(request({ patient: null }))).records).toEqual([]);
    await expect(source.fetch(request({ patient: null, explicit: true }))).rejects.toMatchObject({ code: 'context_source_unavailable' });
  });

  test('a cancelled turn is an AbortError, not a QueryStore failure', async () => {
    const { source, request } = setup();
    const ac = new AbortController();
    ac.abort();
    await expect(source.fetch(request({ signal: ac.signal }))).rejects.toMatchObject({ name: 'AbortError' });
  });
});
