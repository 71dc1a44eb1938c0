/**
 * The QueryStore HTTP client (hub-contract §5.4) against the fake QueryStore over loopback. Every wait is on a
 * state of the fake (a request seen, a connection closed), never on wall time.
 */
import { createQuerystoreClient, type QuerystoreClientOptions } from '../../server/context/sources/querystore/client';
import { type AcquiredLedger, type LedgerFetchResult, type QuerystoreApi, QuerystoreError } from '../../server/context/sources/querystore/types';
import { FakeQuerystore, qsChart, qsRecord, type RecordedRequest } from '../support/fake-querystore';

const P = 'patient-7f3c9e21';
const PASSWORD = 'hub-secret';
let fake: FakeQuerystore;
let baseUrl: string;
const clients: QuerystoreApi[] = [];

beforeAll(async () => {
  fake = new FakeQuerystore({ prefix: '/openmrs', password: PASSWORD });
  baseUrl = await fake.start();
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.reset();
  fake.setChart(P, qsChart(365, { seed: P }));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function client(over: Partial<QuerystoreClientOptions> = {}): QuerystoreApi {
  const c = createQuerystoreClient({
    baseUrl, username: 'med-agent-hub', password: PASSWORD, connectTimeoutMs: 5000, idleTimeoutMs: 10_000, requestTimeoutMs: 15_000, ...over,
  });
  clients.push(c);
  return c;
}

async function failure(p: Promise<unknown>): Promise<QuerystoreError> {
  const err = await p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QuerystoreError);
  const qe = err as QuerystoreError;
  expect(qe.message).not.toContain(P);
  expect(qe.message).not.toContain(PASSWORD);
  return qe;
}

function ledgerOf(result: LedgerFetchResult): AcquiredLedger {
  if (result.kind !== 'ledger') throw new Error(`expected a ledger, got ${result.kind}`);
  return result.ledger;
}

const ledgerRequests = (): RecordedRequest[] => fake.requests.filter((r) => r.kind === 'ledger');

describe('full ledger', () => {
  test('a single page: exact parameters, Basic auth, ETag and snapshot', async () => {
    const ledger = ledgerOf(await client().fetchLedger(P, {}));
    const chart = fake.chart(P)!;
    expect(ledger.records).toHaveLength(365);
    expect(ledger.records[0]).toEqual(chart.records[0]);
    expect(ledger.records[364].resourceType).toBe('patient');
    expect(ledger).toMatchObject({ etag: chart.etag, snapshotId: chart.snapshotId, pages: 1 });
    expect(ledger.bytes).toBe(Buffer.byteLength(JSON.stringify({ results: chart.records, totalCount: 365, links: [], snapshotId: chart.snapshotId })));
    const [req] = fake.requests;
    expect(fake.requests).toHaveLength(1);
    expect(req.path).toBe('/openmrs/ws/rest/v1/querystore/patientrecord');
    expect(req.query).toEqual({ patient: P, limit: '500', startIndex: '0' });
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`med-agent-hub:${PASSWORD}`).toString('base64')}`);
    expect(req.headers['if-none-match']).toBeUndefined();
  });

  test('1,203 records arrive in 3 pages of 500, in order', async () => {
    const records = qsChart(1203, { seed: 'big' });
    fake.setChart(P, records);
    const ledger = ledgerOf(await client().fetchLedger(P, {}));
    expect(ledger.pages).toBe(3);
    expect(ledger.records.map((r) => r.resourceUuid)).toEqual(records.map((r) => r.resourceUuid));
    expect(ledgerRequests().map((r) => r.query)).toEqual([0, 500, 1000].map((s) => ({ patient: P, limit: '500', startIndex: String(s) })));
  });

  test('an exact multiple of 500 stops once startIndex reaches totalCount', async () => {
    fake.setChart(P, qsChart(1000, { seed: 'even' }));
    expect(ledgerOf(await client().fetchLedger(P, {})).pages).toBe(2);
    expect(ledgerRequests()).toHaveLength(2);
  });

  test('an empty chart is one request', async () => {
    fake.setChart(P, []);
    const ledger = ledgerOf(await client().fetchLedger(P, {}));
    expect([ledger.records, ledger.pages]).toEqual([[], 1]);
  });

  test('If-None-Match goes on the first page only', async () => {
    const stale = fake.chart(P)!.etag;
    fake.setChart(P, qsChart(1203, { seed: 'changed' }));
    const ledger = ledgerOf(await client().fetchLedger(P, { etag: stale }));
    expect(ledger.etag).toBe(fake.chart(P)!.etag);
    expect(ledgerRequests().map((r) => r.headers['if-none-match'])).toEqual([stale, undefined, undefined]);
  });

  test('a first-page 304 is not_modified after exactly one request', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'big' }));
    const result = await client().fetchLedger(P, { etag: fake.chart(P)!.etag });
    expect(result).toEqual({ kind: 'not_modified' });
    expect(fake.counts(P)).toMatchObject({ requests: 1, notModified: 1, acquisitions: 0 });
  });

  test('a 304 on a later page is not honoured', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'big' }));
    fake.fault({ match: { kind: 'ledger', page: 1 }, status: 304 });
    const err = await failure(client().fetchLedger(P, { etag: '"stale"' }));
    expect(err.kind).toBe('contract');
    expect(err.message).toMatch(/ledger page 2.*HTTP 304 on a later page/);
  });

  test('a 304 to a request without a validator is a contract error', async () => {
    fake.fault({ match: { kind: 'ledger', page: 0 }, status: 304 });
    const err = await failure(client().fetchLedger(P, {}));
    expect(err.kind).toBe('contract');
    expect(err.message).toMatch(/HTTP 304 to a request without If-None-Match/);
  });

  test.each<[string, Parameters<FakeQuerystore['fault']>[0], RegExp]>([
    ['a missing ETag', { omit: ['etag'] }, /first page has no ETag header/],
    ['a missing snapshotId', { omit: ['snapshotId'] }, /snapshotId must be a non-blank string \(it is missing\)/],
    ['a missing totalCount', { omit: ['totalCount'] }, /totalCount must be an integer of at least 0/],
    ['missing results', { omit: ['results'] }, /results must be an array/],
    ['malformed JSON', { malformedJson: true }, /not valid JSON/],
    ['a non-object body', { transform: () => [] }, /the body is an array/],
    ['a record without resourceUuid', { transform: (env) => ({ ...env, results: [qsRecord({ uuid: ' ' })] }) }, /record 1\): resourceUuid/],
  ])('rejects %s', async (_name, script, reason) => {
    fake.fault({ match: { kind: 'ledger', page: 0 }, ...script });
    const err = await failure(client().fetchLedger(P, {}));
    expect(err.kind).toBe('contract');
    expect(err.message).toMatch(reason);
  });

  test('rejects a duplicate identity across pages', async () => {
    const records = qsChart(700, { seed: 'dup' });
    records[650] = { ...records[650], resourceType: records[3].resourceType, resourceUuid: records[3].resourceUuid };
    fake.setChart(P, records);
    const err = await failure(client().fetchLedger(P, {}));
    expect(err.kind).toBe('contract');
    expect(err.message).toMatch(/ledger page 2, record 151\): the record repeats the identity/);
    expect(err.message).not.toContain(String(records[3].resourceUuid));
  });

  test('rejects a totalCount that changes between pages', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'big' }));
    fake.fault({ match: { kind: 'ledger', page: 1 }, transform: (env) => ({ ...env, totalCount: 1204 }) });
    const err = await failure(client().fetchLedger(P, {}));
    expect([err.kind, err.message]).toEqual(['contract', expect.stringMatching(/totalCount changed between pages/)]);
    expect(ledgerRequests()).toHaveLength(2);
  });

  test('rejects a truncated ledger (a short page before totalCount)', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'big' }));
    fake.fault({ match: { kind: 'ledger', page: 1 }, transform: (env) => ({ ...env, results: (env.results as unknown[]).slice(0, 120) }) });
    const err = await failure(client().fetchLedger(P, {}));
    expect([err.kind, err.message]).toEqual(['contract', expect.stringMatching(/truncated: 620 of totalCount=1203/)]);
  });

  test('a snapshot change mid-paging is inconsistent_snapshot; the next acquisition is consistent', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'v1' }));
    const v2 = qsChart(1203, { seed: 'v2' });
    fake.changeChartAfterPage(P, 0, v2);
    const api = client();
    const err = await failure(api.fetchLedger(P, {}));
    expect(err.kind).toBe('inconsistent_snapshot');
    expect(err.message).toMatch(/ledger page 2 has another snapshotId/);
    const ledger = ledgerOf(await api.fetchLedger(P, {}));
    expect(ledger.records.map((r) => r.resourceUuid)).toEqual(v2.map((r) => r.resourceUuid));
    expect(fake.counts(P)).toMatchObject({ firstPages: 2, acquisitions: 2, ledgerPages: 5 });
  });

  test('a chart that keeps changing stays inconsistent for as many attempts as scripted', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'v1' }));
    fake.changeChartAfterPage(P, 1, qsChart(1203, { seed: 'v2' }), { times: 2 });
    const api = client();
    expect((await failure(api.fetchLedger(P, {}))).kind).toBe('inconsistent_snapshot');
    expect((await failure(api.fetchLedger(P, {}))).kind).toBe('inconsistent_snapshot');
    expect(ledgerOf(await api.fetchLedger(P, {})).pages).toBe(3);
  });

  test('a body over maxResponseBytes is refused', async () => {
    const err = await failure(client({ maxResponseBytes: 4096 }).fetchLedger(P, {}));
    expect([err.kind, err.message]).toEqual(['contract', expect.stringMatching(/exceeds the 4096-byte cap/)]);
  });
});

describe('HTTP errors', () => {
  test('401: the service account was refused (names the Get Patients privilege)', async () => {
    const err = await failure(client({ password: 'wrong' }).fetchLedger(P, {}));
    expect([err.kind, err.status]).toEqual(['http', 401]);
    expect(err.message).toMatch(/refused the service account 'med-agent-hub'.*'Get Patients' privilege/);
    expect(err.message).not.toContain('wrong');
    expect(fake.requests[0].status).toBe(401);
  });

  test('403: the service account was refused', async () => {
    fake.fault({ status: 403, body: { error: 'Privileges required: Get Patients' } });
    const err = await failure(client().rankedSearch(P, 'weight', {}));
    expect([err.kind, err.status]).toEqual(['http', 403]);
    expect(err.message).toMatch(/refused the service account/);
  });

  test('404: the patient is unknown to QueryStore (the echoing body is not quoted)', async () => {
    const err = await failure(client().fetchLedger('patient-unknown-42', {}));
    expect([err.kind, err.status]).toEqual(['http', 404]);
    expect(err.message).toMatch(/patient is unknown to QueryStore/);
    expect(err.message).not.toContain('patient-unknown-42');
  });

  test.each([500, 502, 503])('%i: QueryStore failed', async (status) => {
    fake.fault({ match: { kind: 'slice' }, status, body: `stack trace mentioning ${P}` });
    const err = await failure(client().contextSlice(P, { question: 'weight?', temporal: false }));
    expect([err.kind, err.status, err.message]).toEqual(['http', status, `QueryStore failed (HTTP ${status}).`]);
  });

  test('a failed later page fails the acquisition', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'big' }));
    fake.fault({ match: { kind: 'ledger', page: 2 }, status: 500, times: 1 });
    const err = await failure(client().fetchLedger(P, {}));
    expect([err.kind, err.status]).toEqual(['http', 500]);
  });
});

describe('transport', () => {
  test('a stopped server is a transport error', async () => {
    const gone = new FakeQuerystore();
    const url = await gone.start();
    await gone.stop();
    const err = await failure(client({ baseUrl: url }).fetchLedger(P, {}));
    expect(err.kind).toBe('transport');
    expect(err.message).toMatch(/Cannot reach QueryStore at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  test.each(['destroy', 'destroy_mid_body'] as const)('a dropped socket (%s) is a transport error', async (socket) => {
    fake.fault({ match: { kind: 'ledger' }, socket, times: 1 });
    const err = await failure(client().fetchLedger(P, {}));
    expect(err.kind).toBe('transport');
  });

  test('a silent QueryStore trips the idle timeout', async () => {
    fake.fault({ socket: 'hang', times: 1 });
    const err = await failure(client({ idleTimeoutMs: 50 }).fetchLedger(P, {}));
    expect([err.kind, err.message]).toEqual(['transport', expect.stringMatching(/went silent for longer than the idle timeout/)]);
  });

  test('the whole-call deadline bounds a call with no idle timeout', async () => {
    fake.fault({ socket: 'hang', times: 1 });
    const err = await failure(client({ idleTimeoutMs: 0, requestTimeoutMs: 50 }).rankedSearch(P, 'weight', {}));
    expect([err.kind, err.message]).toEqual(['transport', expect.stringMatching(/did not answer within 50 ms/)]);
  });
});

describe('cancellation', () => {
  test('an already aborted signal sends nothing', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const api = client();
    expect((await failure(api.fetchLedger(P, { signal: ctl.signal }))).kind).toBe('aborted');
    expect((await failure(api.rankedSearch(P, 'q', { signal: ctl.signal }))).kind).toBe('aborted');
    expect((await failure(api.contextSlice(P, { question: 'q', temporal: true, signal: ctl.signal }))).kind).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
  });

  test('an abort while a later page is pending rejects with aborted and frees the socket', async () => {
    fake.setChart(P, qsChart(1203, { seed: 'big' }));
    fake.fault({ match: { kind: 'ledger', page: 1 }, socket: 'hang', times: 1 });
    const ctl = new AbortController();
    const api = client();
    const pending = failure(api.fetchLedger(P, { signal: ctl.signal }));
    await fake.waitFor(() => ledgerRequests().some((r) => r.page === 1));
    ctl.abort();
    expect((await pending).kind).toBe('aborted');
    const hung = ledgerRequests().find((r) => r.page === 1)!;
    await fake.waitFor(() => hung.abandoned);
    expect(ledgerRequests()).toHaveLength(2);
    // The pool still works after the cancelled request.
    expect(ledgerOf(await api.fetchLedger(P, {})).pages).toBe(3);
  });

  test('an abort while headers are pending on a ranked search rejects with aborted', async () => {
    fake.fault({ match: { kind: 'ranked' }, socket: 'hang', times: 1 });
    const ctl = new AbortController();
    const pending = failure(client().rankedSearch(P, 'weight', { signal: ctl.signal }));
    await fake.waitFor(() => fake.requests.length === 1);
    ctl.abort();
    expect((await pending).kind).toBe('aborted');
    await fake.waitFor(() => fake.requests[0].abandoned);
  });
});

describe('ranked search', () => {
  const QUESTION = 'Was the "CD4 count" < 350 & weight (kg) 60+? 100% sûr/#frag';

  test('sends exactly patient, q (the raw question) and limit=20', async () => {
    const hits = await client().rankedSearch(P, QUESTION, {});
    const [req] = fake.requests;
    expect(req.query).toEqual({ patient: P, q: QUESTION, limit: '20' });
    expect(req.search).toBe(new URLSearchParams({ patient: P, q: QUESTION, limit: '20' }).toString());
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(20);
    expect(hits.map((h) => h.rank)).toEqual(hits.map((_h, i) => i + 1));
    expect(hits[0].text).toMatch(/CD4 count|Weight/);
  });

  test('scripted hits are validated as records', async () => {
    fake.setRanked(P, [qsRecord({ uuid: 'h-1', text: 'Weight (kg): 61 kg' }), qsRecord({ uuid: 'h-2', resourceType: 'drug_order', text: 'Drug order' })]);
    const hits = await client().rankedSearch(P, 'weight', {});
    expect(hits.map((h) => [h.resourceUuid, h.rank])).toEqual([['h-1', 1], ['h-2', 2]]);
  });

  test('a hit without identity is a contract error', async () => {
    fake.setRanked(P, [{ text: 'Weight' }]);
    const err = await failure(client().rankedSearch(P, 'weight', {}));
    expect([err.kind, err.message]).toEqual(['contract', expect.stringMatching(/ranked search, record 1\): resourceType/)]);
  });
});

describe('context slice', () => {
  test('sends exactly the specified parameters (types sorted, interpret=true, raw question)', async () => {
    const question = 'Any allergies & meds since 2025-01-01?';
    const rows = await client().contextSlice(P, { question, temporal: true, types: ['obs', 'drug_order', 'condition'] });
    const [req] = fake.requests;
    expect(req.query).toEqual({ patient: P, mode: 'context', q: question, temporal: 'true', limit: '500', interpret: 'true', types: 'condition,drug_order,obs' });
    expect(rows).toHaveLength(365);
    expect(rows.filter((r) => r.tier === 'mandatory').map((r) => r.resourceType).sort()).toEqual(['allergy', 'patient']);
    expect(rows.every((r) => r.tier === 'mandatory' || r.tier === 'similarity')).toBe(true);
  });

  test('omits types when there are none', async () => {
    await client().contextSlice(P, { question: 'weight', temporal: false, types: [] });
    expect(fake.requests[0].query).toEqual({ patient: P, mode: 'context', q: 'weight', temporal: 'false', limit: '500', interpret: 'true' });
  });

  test.each<[string, Record<string, unknown>]>([
    ['without a tier', qsRecord({ uuid: 's-1' })],
    ['with an unknown tier', { ...qsRecord({ uuid: 's-1' }), tier: 'top' }],
  ])('a row %s is a contract error', async (_name, row) => {
    fake.setSlice(P, [{ ...qsRecord({ uuid: 's-0' }), tier: 'exact' }, row]);
    const err = await failure(client().contextSlice(P, { question: 'weight', temporal: false }));
    expect([err.kind, err.message]).toEqual(['contract', expect.stringMatching(/context slice, record 2\): tier must be one of/)]);
  });
});

describe('identity and base URL', () => {
  test('identity is base URL + username, never the password; trailing slashes are dropped', async () => {
    const api = client({ baseUrl: `${baseUrl}///` });
    expect(api.identity).toBe(`${new URL(baseUrl).origin}/openmrs|med-agent-hub`);
    expect(api.identity).not.toContain(PASSWORD);
    await api.fetchLedger(P, {});
    expect(fake.requests[0].path).toBe('/openmrs/ws/rest/v1/querystore/patientrecord');
  });
});

describe('the fake speaks QueryStore\'s wire (clients.md §4)', () => {
  const auth = { authorization: `Basic ${Buffer.from(`med-agent-hub:${PASSWORD}`).toString('base64')}` };
  const get = async (query: string, headers: Record<string, string> = auth) => {
    const res = await fetch(`${baseUrl}/ws/rest/v1/querystore/patientrecord?${query}`, { headers });
    return { status: res.status, headers: res.headers, body: res.status === 304 ? null : ((await res.json()) as Record<string, unknown>) };
  };

  test.each([
    ['limit=0', `patient=${P}&limit=0`, 400],
    ['a negative startIndex', `patient=${P}&startIndex=-1`, 400],
    ['a non-integer limit', `patient=${P}&limit=ten`, 400],
    ['neither patient nor q', 'limit=5', 400],
    ['an unknown patient', 'patient=nobody', 404],
  ])('%s ⇒ %i with {"error": …}', async (_name, query, status) => {
    const res = await get(query);
    expect(res.status).toBe(status);
    expect(typeof res.body?.error).toBe('string');
  });

  test('no credentials ⇒ 401 with WWW-Authenticate', async () => {
    const res = await get(`patient=${P}`, {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  test('default paging (limit 50), links, snapshotId and the first page\'s ETag', async () => {
    const first = await get(`patient=${P}`);
    expect((first.body?.results as unknown[]).length).toBe(50);
    expect(first.body).toMatchObject({ totalCount: 365, snapshotId: fake.chart(P)!.snapshotId, links: [{ rel: 'next' }] });
    expect(first.headers.get('etag')).toBe(fake.chart(P)!.etag);
    const later = await get(`patient=${P}&startIndex=50`);
    expect(later.headers.get('etag')).toBeNull();
    expect((later.body?.links as Array<{ rel: string }>).map((l) => l.rel)).toEqual(['prev', 'next']);
    const revalidated = await get(`patient=${P}`, { ...auth, 'if-none-match': fake.chart(P)!.etag });
    expect(revalidated.status).toBe(304);
  });

  test('ranked windows have totalCount null and no snapshot', async () => {
    const res = await get(`patient=${P}&q=weight&limit=3`);
    expect(res.body).toMatchObject({ totalCount: null });
    expect(res.body).not.toHaveProperty('snapshotId');
    expect((res.body?.results as Array<{ rank: number }>).map((r) => r.rank)).toEqual([1, 2, 3]);
  });

  test('setChart bumps the snapshotId; the ETag follows the content', () => {
    const before = fake.chart(P)!;
    fake.setChart(P, before.records);
    expect(fake.chart(P)!.snapshotId).not.toBe(before.snapshotId);
    expect(fake.chart(P)!.etag).toBe(before.etag);
    fake.setChart(P, before.records.slice(1));
    expect(fake.chart(P)!.etag).not.toBe(before.etag);
  });
});
