/**
 * QueryStore turns end to end (issue #12): a ChartSearchAI-shaped request (`patient`, prior prose turns,
 * `context.session` / `request_id` / `account_context`, no chart) answered from a fake QueryStore speaking its
 * real wire, through a real hub and a fake router. Covers the patient ledger cache over HTTP (single-flight,
 * 304 revalidation, snapshot change mid-paging, failed revalidation), slice tiers, degradation, the trace and logs.
 */
import type { RunningHub } from '../../server/main';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { scriptChecked } from '../support/checkers';
import { useQuerystoreHub, type QuerystoreHub } from '../support/querystore-hub';
import { FakeQuerystore, qsChart, qsRecord, uuidFrom } from '../support/fake-querystore';
import { FakeRouter } from '../support/fake-router';
import { postJson, startTestHub, traceLines } from '../support/hub';

const PATIENT = 'a1b2c3d4-0000-4000-8000-00000000e001';
const QUESTION = 'How has the weight changed?';
const uuid = (n: number) => uuidFrom('small-chart', n);
/** Newest first, as QueryStore sends a chart; index N of the ledger is position N here. */
const SMALL = [
  qsRecord({ uuid: uuid(1), date: '2026-03-02', text: 'Weight (kg): 71.0 kg', metadata: { concept_name: 'Weight (kg)', value_numeric: 71, units: 'kg', obs_group_uuid: uuid(90), obs_group_concept_name: 'Vitals' } }),
  qsRecord({ uuid: uuid(2), resourceType: 'encounter', date: '2026-03-02', text: 'Encounter: Adult Visit at Clinic A', metadata: { encounter_type: 'Adult Visit' } }),
  qsRecord({ uuid: uuid(3), date: '2026-01-10', text: 'Weight (kg): 74 kg', metadata: { concept_name: 'Weight (kg)', value_numeric: 74, units: 'kg' } }),
  qsRecord({ uuid: uuid(4), resourceType: 'allergy', date: '2025-12-01', text: 'Allergy: Penicillin. Reaction: rash', metadata: { allergen: 'Penicillin' } }),
  qsRecord({ uuid: uuid(5), resourceType: 'patient', date: '2025-09-09', clinicalDate: null, dateKind: 'administrative', text: 'Patient: Test Patient. Female. Born 1998-05-30.', metadata: {} }),
];
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [1].';
const CLAIMS = ['The most recent weight, 71 kg, was recorded on 2026-03-02 [1].', 'A penicillin allergy with rash is documented [4].'];

/** What the ChartSearchAI module sends (clients.md §2.1): no chart, prior prose turns, the patient. */
function chartSearchBody(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model,
    stream: true,
    patient: PATIENT,
    messages: [
      { role: 'user', content: 'Any allergies?' },
      { role: 'assistant', content: 'A penicillin allergy is recorded.' },
      { role: 'user', content: QUESTION },
    ],
    context: {
      require_product_profile: true,
      session: 'session-1',
      request_id: 'request-1',
      account_context: { source: 'openmrs_session', user_uuid: 'u-1', assigned_roles: ['Organizational: Nurse'], effective_roles: [], session_location: { uuid: 'l-1', name: 'Clinic A' }, locale: 'en' },
    },
    ...extra,
  };
}

function scriptBare(router: FakeRouter): void {
  router.script(
    { match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: CLAIMS }) },
    { content: JSON.stringify({ answer: ANSWER, citations: [3, 1], blocks: [] }) },
  );
}

function useTurnsHub(env: Record<string, string> = {}): QuerystoreHub {
  return useQuerystoreHub({ env, prefix: '/openmrs', seed: (qs) => qs.setChart(PATIENT, SMALL) });
}

async function streamTurn(hub: RunningHub, body: Record<string, unknown>) {
  const res = await postJson(`${hub.url}/v1/chat/completions`, body);
  return { res, parsed: parseChartSearchStream(await res.text()) };
}

async function blockingTurn(hub: RunningHub, body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  const res = await postJson(`${hub.url}/v1/chat/completions`, { ...body, stream: false });
  return { status: res.status, json: await res.json() };
}

function envelopeOf(json: any): Record<string, any> {
  return JSON.parse(json.choices[0].message.content);
}

function contextSteps(lines: Array<Record<string, any>>, requestId: string): Array<Record<string, any>> {
  const line = lines.filter((l) => l.correlation?.request_id === requestId).pop();
  return (line?.steps ?? []).filter((s: any) => s.role === 'context_source');
}

describe('QueryStore turns', () => {
  const ctx = useTurnsHub();

  test('a ChartSearchAI request to single-12b-bare streams a complete staged answer cited to QueryStore records', async () => {
    scriptBare(ctx.router);
    const { res, parsed } = await streamTurn(ctx.hub, chartSearchBody('single-12b-bare'));
    expect(res.status).toBe(200);
    expect(parsed.error).toBeNull();
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);
    expect(parsed.settled).toEqual([]);
    const done = parsed.events[3].data as Record<string, any>;
    expect(done.answer).toBe(ANSWER);
    expect(done.answerValidation.status).toBe('checked');
    const used = done.references.filter((r: any) => r.usage?.length);
    expect(used.length).toBeGreaterThan(0);
    for (const ref of used) {
      expect(ref).toMatchObject({ source: 'querystore', resolutionStatus: 'resolved' });
      expect(['obs', 'allergy']).toContain(ref.resourceType);
      expect(ref.resourceUuid).toMatch(/^[0-9a-f]{8}-/);
      expect(ref.sourceId).toBe(`querystore:${ref.resourceType}:${ref.resourceUuid}`);
    }
    expect(done.references.find((r: any) => r.index === 1)).toMatchObject({ resourceUuid: uuid(1), resourceType: 'obs' });
    expect(done.context.sources).toEqual(['querystore']);
    // The hub fetched the chart with the service account and placed it itself (no chart came in).
    const first = ctx.qs.requests.find((r) => r.kind === 'ledger')!;
    expect(first.headers.authorization).toBe(`Basic ${Buffer.from('med-agent-hub:hub-secret').toString('base64')}`);
    expect(first.query).toMatchObject({ patient: PATIENT, limit: '500', startIndex: '0' });
    const slice = ctx.qs.requests.find((r) => r.kind === 'slice')!;
    expect(slice.query).toMatchObject({ patient: PATIENT, mode: 'context', q: QUESTION, interpret: 'true', temporal: 'true', limit: '500' });
    const answerCall = ctx.router.chatRequests().find((r) => JSON.stringify(r.body.messages).includes('=== QUESTION ==='))!;
    const prompt = JSON.stringify(answerCall.body.messages);
    expect(prompt).toContain('Patient records (most recent first):');
    expect(prompt).toContain('[1] (2026-03-02) Weight (kg): 71 kg (part of: Vitals)');
    expect(prompt).toContain('[5] (2025-09-09) Patient: Test Patient. Female. Born 1998-05-30. [administrative]');
    // Prior prose turns are history, not chart.
    expect(prompt).toContain('Any allergies?');
  });

  test('the blocking form returns the same envelope', async () => {
    scriptBare(ctx.router);
    const streamed = (await streamTurn(ctx.hub, chartSearchBody('single-12b-bare'))).parsed.events[3].data as Record<string, any>;
    scriptBare(ctx.router);
    const { status, json } = await blockingTurn(ctx.hub, chartSearchBody('single-12b-bare'));
    expect(status).toBe(200);
    const env = envelopeOf(json);
    // The same envelope but for when its parts finished.
    const timeless = ({ completedAt: _c, latency_ms: _l, ...rest }: Record<string, unknown>) => rest;
    for (const key of ['answer', 'references', 'context']) expect(env[key]).toEqual(streamed[key]);
    for (const key of ['answerValidation', 'inDepth']) expect(timeless(env[key])).toEqual(timeless(streamed[key]));
  });

  test('a ChartSearchAI request to single-12b-checked streams the checked stages, references verified against QueryStore records', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 1], claims: CLAIMS });
    const { parsed } = await streamTurn(ctx.hub, chartSearchBody('single-12b-checked'));
    expect(parsed.error).toBeNull();
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'done']);
    const validation = parsed.events[1].data as Record<string, any>;
    expect(validation.answerValidation.status).toBe('checked');
    for (const ref of validation.references) expect(ref).toMatchObject({ source: 'querystore', resolutionStatus: 'resolved', groundingStatus: 'verified' });
    const { status, json } = await blockingTurn(ctx.hub, chartSearchBody('single-12b-checked'));
    expect(status).toBe(200);
    expect(envelopeOf(json).answerValidation.status).toBe('checked');
  });

  test("the validation harness's direct runner (a low-level leg, patient, blocking) is answered from QueryStore", async () => {
    ctx.router.script({ content: JSON.stringify({ answer: 'Weight 71 kg on 2026-03-02 [1].' }) });
    const { status, json } = await blockingTurn(ctx.hub, {
      model: 'answer:gemma-4-12b@synthesis-chartsearchai~off', patient: PATIENT,
      messages: [{ role: 'user', content: 'Question one' }, { role: 'assistant', content: 'First' }, { role: 'user', content: QUESTION }],
      context: { session: 's', request_id: 'r' },
    });
    expect(status).toBe(200);
    expect(envelopeOf(json).answer).toBe('Weight 71 kg on 2026-03-02 [1].');
    const prompt = JSON.stringify(ctx.router.chatRequests()[0].body.messages);
    expect(prompt).toContain('[1] (2026-03-02) Weight (kg): 71 kg (part of: Vitals)');
  });

  test('20 concurrent turns for one uncached patient make one acquisition; the next turn revalidates with one 304', async () => {
    const patient = 'p-concurrent-20';
    ctx.qs.setChart(patient, qsChart(365, { seed: patient }));
    ctx.router.script({ content: JSON.stringify({ answer: 'The chart is long.', citations: [], blocks: [] }) });
    const turns = await Promise.all(Array.from({ length: 20 }, () => blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-fast'), patient })));
    expect(turns.map((t) => t.status)).toEqual(Array(20).fill(200));
    // One acquisition; turns that arrived after it settled revalidated it (first page only, answered 304).
    const counts = ctx.qs.counts(patient);
    expect(counts.acquisitions).toBe(1);
    expect(counts.ledgerPages - 1).toBe(counts.notModified);
    const before = ctx.qs.counts(patient);
    const again = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-fast'), patient });
    expect(again.status).toBe(200);
    const after = ctx.qs.counts(patient);
    expect(after.firstPages - before.firstPages).toBe(1);
    expect(after.notModified - before.notModified).toBe(1);
    expect(after.acquisitions).toBe(1);
    const ledgerRequests = ctx.qs.requests.filter((r) => r.kind === 'ledger' && r.patient === patient);
    expect(ledgerRequests.pop()!.headers['if-none-match']).toBe(ctx.qs.chart(patient)!.etag);
  });

  test('a chart changed between pages is retried once, then fails explicitly', async () => {
    const patient = 'p-snapshot';
    const chart = qsChart(520, { seed: patient }); // two pages of 500
    ctx.qs.setChart(patient, chart);
    ctx.qs.changeChartAfterPage(patient, 0, qsChart(520, { seed: `${patient}-edited` }), { times: 2 });
    const failed = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-fast'), patient });
    expect(failed.status).toBe(503);
    expect(failed.json.detail).toMatchObject({ code: 'context_source_failed', source: 'querystore' });
    expect(failed.json.detail.message).toMatch(/snapshot/i);
    expect(ctx.qs.counts(patient).firstPages).toBe(2);
    expect(ctx.router.chatRequests()).toHaveLength(0);
    // One change only: the retry reads a consistent chart.
    ctx.qs.reset();
    ctx.qs.setChart(patient, chart);
    ctx.qs.changeChartAfterPage(patient, 0, qsChart(520, { seed: `${patient}-edited-again` }), { times: 1 });
    ctx.router.script({ content: JSON.stringify({ answer: 'ok', citations: [], blocks: [] }) });
    const ok = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-fast'), patient });
    expect(ok.json.detail ?? null).toBeNull();
    expect(ok.status).toBe(200);
    // The mixed read and its retry; the slice, read from the chart before the change, then asked for one
    // refresh (304: the retried ledger is current) and a new slice that resolves.
    expect(ctx.qs.counts(patient)).toMatchObject({ firstPages: 3, acquisitions: 2, notModified: 1 });
    expect(ctx.qs.requests.filter((r) => r.kind === 'slice')).toHaveLength(2);
  });

  test('a failed revalidation is never answered from the cache; streamed, it is an error event', async () => {
    const patient = 'p-revalidate';
    ctx.qs.setChart(patient, SMALL);
    scriptBare(ctx.router);
    expect((await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient })).status).toBe(200);
    ctx.router.reset();
    ctx.qs.fault({ match: { kind: 'ledger', patient }, status: 500, body: { error: 'boom' } });
    const failed = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient });
    expect(failed.status).toBe(503);
    expect(failed.json.detail).toMatchObject({ code: 'context_source_failed', source: 'querystore' });
    expect(failed.json.detail.message).toContain(`patient '${patient}'`);
    const { parsed } = await streamTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient });
    expect(parsed.events.map((e) => e.name)).toEqual(['error']);
    expect(parsed.events[0].data).toMatchObject({ code: 'context_source_failed', source: 'querystore' });
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('an unknown patient and a refused service account are explicit failures', async () => {
    const unknown = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient: 'p-nobody' });
    expect(unknown.status).toBe(503);
    expect(unknown.json.detail).toMatchObject({ code: 'context_source_failed', source: 'querystore', querystore_status: 404 });
    ctx.qs.fault({ match: { kind: 'ledger' }, status: 401, body: { error: 'unauthorized' } });
    const refused = await blockingTurn(ctx.hub, chartSearchBody('single-12b-bare'));
    expect(refused.status).toBe(503);
    expect(refused.json.detail).toMatchObject({ code: 'context_source_failed', querystore_status: 401 });
    expect(refused.json.detail.message).toMatch(/Get Patients/);
  });

  test('ranked search and slice failures degrade to the local policy and are traced', async () => {
    ctx.qs.fault({ match: { kind: 'ranked' }, status: 500, body: {} });
    ctx.qs.fault({ match: { kind: 'slice' }, status: 500, body: {} });
    scriptBare(ctx.router);
    const { status, json } = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), context: { request_id: 'degraded' } });
    expect(status).toBe(200);
    expect(envelopeOf(json).answer).toBe(ANSWER);
    const [step] = contextSteps(await traceLines(ctx.hub), 'degraded');
    expect(step).toMatchObject({ source: 'querystore', ranked: { status: 'failed' }, slice: { status: 'failed' } });
  });

  test('the trace names the source, snapshot, cache outcome and slice tiers; a failure is traced as failed', async () => {
    scriptBare(ctx.router);
    await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient: 'p-trace', context: { request_id: 'trace-miss' } }).catch(() => undefined);
    ctx.qs.setChart('p-trace', SMALL);
    await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient: 'p-trace', context: { request_id: 'trace-first' } });
    scriptBare(ctx.router);
    await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient: 'p-trace', context: { request_id: 'trace-304' } });
    const lines = await traceLines(ctx.hub);
    expect(contextSteps(lines, 'trace-miss')[0]).toMatchObject({ source: 'querystore', cache: 'failed', failure: 'http' });
    const first = contextSteps(lines, 'trace-first')[0];
    expect(first).toMatchObject({ source: 'querystore', cache: 'miss', snapshot_id: ctx.qs.chart('p-trace')!.snapshotId, acquisitions: 1, pages: 1, ledger_records: 5 });
    expect(first.slice).toMatchObject({ status: 'ok', temporal: true });
    expect(first.slice.tiers).toMatchObject({ mandatory: 2 });
    expect(contextSteps(lines, 'trace-304')[0]).toMatchObject({ cache: 'not_modified', acquisitions: 0 });
  });

  test('records the slice marks mandatory are in the Answer prompt even when they share no words with the question', async () => {
    const patient = 'p-mandatory';
    const registration = qsRecord({ uuid: uuidFrom(patient, 'reg'), resourceType: 'encounter', date: '2024-01-02', text: 'Encounter: Registration desk note zebra', metadata: {} });
    const chart = [...qsChart(300, { seed: patient }), registration];
    ctx.qs.setChart(patient, chart);
    ctx.qs.setSlice(patient, [{ ...registration, tier: 'mandatory' }]);
    ctx.router.script({ content: JSON.stringify({ answer: 'ok', citations: [], blocks: [] }) });
    const { status, json } = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient });
    expect(status).toBe(200);
    const env = envelopeOf(json);
    expect(env.context.included).toContainEqual({ source_id: `querystore:encounter:${registration.resourceUuid}`, reason: 'mandatory' });
    const answerCall = ctx.router.chatRequests().find((r) => JSON.stringify(r.body.messages).includes('=== QUESTION ==='))!;
    expect(JSON.stringify(answerCall.body.messages)).toContain('Registration desk note zebra');
  });

  test('mandatory records that cannot fit fail with insufficient_context naming them, never dropped', async () => {
    const patient = 'p-mandatory-overflow';
    const big = Array.from({ length: 60 }, (_, i) => qsRecord({ uuid: uuidFrom(patient, `big-${i}`), resourceType: 'obs', date: '2025-01-01', text: `Clinical note ${i}: ${'very long narrative text '.repeat(200)}`, metadata: {} }));
    ctx.qs.setChart(patient, [...qsChart(20, { seed: patient }), ...big]);
    ctx.qs.setSlice(patient, big.map((r) => ({ ...r, tier: 'mandatory' })));
    const { status, json } = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient });
    expect(status).toBe(422);
    expect(json.detail.code).toBe('insufficient_context');
    expect(json.detail.mandatory_ids).toEqual(expect.arrayContaining(big.map((r) => `querystore:obs:${r.resourceUuid}`)));
  });

  test('a mandatory slice row its chart does not hold (after one refresh) fails the turn, naming it', async () => {
    const patient = 'p-mandatory-ghost';
    ctx.qs.setChart(patient, SMALL);
    const ghost = qsRecord({ uuid: uuidFrom(patient, 'ghost'), resourceType: 'allergy', text: 'Allergy: Sulfa', metadata: {} });
    ctx.qs.setSlice(patient, [{ ...ghost, tier: 'mandatory' }]);
    const { status, json } = await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient });
    expect(status).toBe(503);
    expect(json.detail).toMatchObject({ code: 'context_source_failed', source: 'querystore', mandatory_ids: [`querystore:allergy:${ghost.resourceUuid}`] });
    // The one refresh revalidated (304) rather than dropping the row on the first miss.
    expect(ctx.qs.counts(patient).firstPages).toBe(2);
  });

  test('POST /admin/querystore/cache/purge empties the cache: the next turn acquires the chart again; /metrics counts lookups', async () => {
    const patient = 'p-purge';
    ctx.qs.setChart(patient, SMALL);
    scriptBare(ctx.router);
    expect((await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient })).status).toBe(200);
    const purge = await postJson(`${ctx.hub.url}/admin/querystore/cache/purge`, {});
    expect(purge.status).toBe(200);
    expect(((await purge.json()) as any).purged_entries).toBeGreaterThanOrEqual(1);
    scriptBare(ctx.router);
    expect((await blockingTurn(ctx.hub, { ...chartSearchBody('single-12b-bare'), patient })).status).toBe(200);
    expect(ctx.qs.counts(patient)).toMatchObject({ acquisitions: 2, notModified: 0 });
    const metrics = await (await fetch(`${ctx.hub.url}/metrics`)).text();
    expect(metrics).toMatch(/hub_querystore_ledger_lookups_total\{cache="miss"\} [1-9]/);
    expect(metrics).toMatch(/hub_querystore_ledger_lookups_total\{cache="not_modified"\} [1-9]/);
    expect(metrics).toMatch(/hub_querystore_requests_total\{call="slice",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/hub_querystore_cache_entries [1-9]/);
    expect(metrics).not.toContain(patient);
  });

  test('no patient id, question or chart text reaches the logs', async () => {
    const logs = ctx.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [PATIENT, 'p-revalidate', 'p-nobody', QUESTION, 'Penicillin', 'Weight (kg)', 'Test Patient', 'hub-secret']) expect(logs).not.toContain(secret);
  });
});

describe('QueryStore configured but down', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    const closed = new FakeQuerystore();
    const url = await closed.start();
    await closed.stop(); // a port nobody listens on any more
    // Not a start-up dependency: the hub starts with QueryStore unreachable.
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_ANCHOR: '2026-03-10', QUERYSTORE_BASE_URL: url, QUERYSTORE_USERNAME: 'u', QUERYSTORE_PASSWORD: 'p' });
  });
  afterAll(async () => {
    await hub?.close();
    await router?.stop();
  });

  test('a patient turn fails with context_source_unavailable; an inline chart still works', async () => {
    const down = await blockingTurn(hub, chartSearchBody('single-12b-bare'));
    expect(down.status).toBe(503);
    expect(down.json.detail).toMatchObject({ code: 'context_source_unavailable', source: 'querystore' });
    router.script({ content: JSON.stringify({ answer: 'Weight 71 kg [1].', citations: [1], blocks: [] }) });
    const inline = await blockingTurn(hub, { model: 'single-12b-bare', messages: [{ role: 'user', content: 'Patient records (most recent first):\n[1] (2026-03-02) Weight (kg): 71 kg' }, { role: 'user', content: 'Latest weight?' }] });
    expect(inline.status).toBe(200);
    expect(envelopeOf(inline.json).references[0]).toMatchObject({ source: 'inline' });
  });
});

describe('without QueryStore', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_ANCHOR: '2026-03-10' });
  });
  afterAll(async () => {
    await hub?.close();
    await router?.stop();
  });

  test('a patient turn with no chart is context_source_unavailable; the purge route says QueryStore is not configured', async () => {
    const noSource = await blockingTurn(hub, chartSearchBody('single-12b-bare'));
    expect(noSource.status).toBe(503);
    expect(noSource.json.detail).toMatchObject({ code: 'context_source_unavailable', source: 'auto' });
    const purge = await postJson(`${hub.url}/admin/querystore/cache/purge`, {});
    expect(purge.status).toBe(404);
    expect(((await purge.json()) as any).detail.message).toContain('QUERYSTORE_BASE_URL');
  });
});
