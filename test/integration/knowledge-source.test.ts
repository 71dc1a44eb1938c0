/**
 * The hub's knowledge-base context source end to end (issue #17 item 3; knowledge-layer.md §6.4): a product
 * turn of the default profile over an inline chart of a patient on warfarin asking about an antibiotic. The
 * safety-critical warfarin–antibiotic MKU reaches the Answer prompt as a mandatory KnowledgeReference record,
 * the writer cites it, and its reference carries the byte-exact quote and its provenance. Both transports
 * (in process, HTTP to a real knowledge service on loopback with a key), the degraded cases (HTTP error,
 * timeout) and the `off` status are pinned by trace states, never by time.
 */
import { ANTIBIOTIC_QUESTION, WARFARIN_CHART } from '../support/knowledge-demo';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FakeRouter, RecordedRequest } from '../support/fake-router';
import { postJson, ROOT, startTestHub, traceLines, useRouterAndHub, useRouterWith } from '../support/hub';
import { KEYS, startTestKnowledge, type TestKnowledge } from '../support/knowledge-service';
import type { RunningHub } from '../../server/main';
import { PROVENANCE_LINE } from '../../server/context/render';

/**
 * The bundled demo knowledge base (FDA labels, engineer A's ingest): its safety-critical warfarin–antibiotic
 * MKU and that label's provenance, read from the JSONL the hub loads (so a re-generated KB keeps the test true).
 */
const DEMO = path.join(ROOT, 'data/knowledge/demo');
const jsonl = (file: string) => fs.readFileSync(path.join(DEMO, file), 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const DEMO_MKU = jsonl('mkus.jsonl').find((m) => m.safety_critical && /warfarin/i.test(m.doc_id) && /antibiotic/i.test(m.verbatim) && /INR/.test(m.verbatim));
const DEMO_DOC = jsonl('documents.jsonl').find((d) => d.doc_id === DEMO_MKU?.doc_id);
const DEMO_ORG = jsonl('sources.jsonl').find((x) => x.source_id === DEMO_DOC?.source_id)?.org;
const DEMO_CHART = WARFARIN_CHART;
const DEMO_QUESTION = ANTIBIOTIC_QUESTION;
/** KNOWLEDGE_CONTENT unset: the default content is the bundled demo folder. */
const DEMO_ENV = { HUB_ANCHOR: '2026-03-10', KNOWLEDGE_SOURCE: 'auto', KNOWLEDGE_DB_PATH: ':memory:' };

/** The synthetic fixture's safety-critical warfarin–antibiotic MKU (French, fictional organisation), for HTTP. */
const VERBATIM = "Sous warfarine, toute antibiothérapie impose un contrôle rapproché de l'INR.";
const QUESTION = 'Puis-je prescrire un antibiotique à ce patient ?';
const CHART = [
  'Patient records (most recent first):',
  'Patient: 70-year-old Male',
  '[1] (2026-02-01) Medication: warfarine 5 mg',
  '[2] (2026-01-15) Condition: fibrillation atriale, status: active',
  '[3] (2026-01-15) Finding — Weight (kg): 80 kg',
].join('\n');
const KB_RECORD = /\[\d+\] KnowledgeReference \(source: knowledge-base\)/;

function promptText(req: RecordedRequest): string {
  return (req.body.messages as Array<{ content: unknown }>).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

/** The index the hub gave the knowledge record that starts with `verbatim`, read from the prompt the router received. */
function kbIndex(req: RecordedRequest, verbatim: string): number {
  const at = promptText(req).split('\n').find((l) => /^\[\d+\] KnowledgeReference \(source: knowledge-base\): /.test(l) && l.includes(`: ${verbatim}`));
  return at ? Number(/^\[(\d+)\]/.exec(at)![1]) : 0;
}

/** The writer cites the chart's medication [1] and the knowledge record; the In-Depth writer cites the record. */
function scriptWriter(router: FakeRouter, verbatim: string): void {
  router.script(
    { match: { contains: 'DIRECT ANSWER' }, reply: (req) => JSON.stringify({ claims: [`${verbatim.replace(/\.$/, '')} [${kbIndex(req, verbatim)}].`] }) },
    { reply: (req) => JSON.stringify({ answer: `The patient takes warfarin [1]; the label says: ${verbatim.replace(/\.$/, '')} [${kbIndex(req, verbatim)}].`, citations: [1, kbIndex(req, verbatim)], blocks: [] }) },
  );
}

const answerCall = (router: FakeRouter) => router.chatRequests().find((r) => !promptText(r).includes('DIRECT ANSWER'))!;
const inDepthCall = (router: FakeRouter) => router.chatRequests().find((r) => promptText(r).includes('DIRECT ANSWER'))!;

async function ask(hub: RunningHub, requestId: string, content = CHART, question = QUESTION): Promise<{ status: number; json: any; envelope: Record<string, any> }> {
  const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: false, messages: [{ role: 'user', content }, { role: 'user', content: question }], context: { request_id: requestId } });
  const json = (await res.json()) as any;
  return { status: res.status, json, envelope: res.status === 200 ? JSON.parse(json.choices[0].message.content) : {} };
}

async function kbStep(hub: RunningHub, requestId: string): Promise<Record<string, any>> {
  const line = (await traceLines(hub)).filter((l) => l.correlation?.request_id === requestId).pop()!;
  return line.steps.find((s: any) => s.role === 'context_source' && s.source === 'knowledge-base');
}

describe('knowledge-base source in process over the bundled demo KB (default product profile)', () => {
  const ctx = useRouterAndHub({ env: DEMO_ENV });
  const verbatim: string = DEMO_MKU.verbatim;

  test('the demo KB holds a safety-critical warfarin–antibiotic MKU with provenance', () => {
    expect(DEMO_MKU).toMatchObject({ safety_critical: true, reviewed: true });
    expect(DEMO_DOC).toMatchObject({ url: expect.stringMatching(/^https:\/\//), year: expect.any(Number), license: expect.any(String) });
    expect(typeof DEMO_ORG).toBe('string');
  });

  test('the MKU is a mandatory record of the Answer prompt, cited, with its byte-exact quote and provenance', async () => {
    scriptWriter(ctx.router, verbatim);
    const { status, envelope } = await ask(ctx.hub, 'kb-1', DEMO_CHART, DEMO_QUESTION);
    expect(status).toBe(200);
    const index = kbIndex(answerCall(ctx.router), verbatim);
    // After the chart's three records; the notes block follows the patient preamble and is not citable.
    expect(index).toBeGreaterThan(3);
    expect(promptText(answerCall(ctx.router))).toContain('Knowledge-base notes (context only, not citable):');
    const stableId = `knowledge-base:mku:${DEMO_MKU.id}`;
    expect(envelope.context.included).toContainEqual({ source_id: stableId, reason: 'mandatory' });
    const ref = envelope.references.find((r: any) => r.index === index);
    expect(ref).toMatchObject({ sourceId: stableId, source: 'knowledge-base', resourceType: 'KnowledgeReference', resourceUuid: DEMO_MKU.id, date: null, resolutionStatus: 'resolved', title: DEMO_DOC.title });
    // The reference quotes the committed verbatim alone; who says it is its provenance.
    expect(ref.sourceText).toBe(verbatim);
    expect(ref.provenance).toEqual({ authority: DEMO_ORG, url: DEMO_DOC.url, version: String(DEMO_DOC.year), license: DEMO_DOC.license });
    expect(ref.usage[0]).toMatchObject({ location: 'answer' });
    expect(envelope.context.sources).toEqual(['inline', 'knowledge-base']);
  });

  test('the In-Depth prompt gathers the knowledge records; temporal facts ignore them; the trace has counts, no patient text', async () => {
    scriptWriter(ctx.router, verbatim);
    const { envelope } = await ask(ctx.hub, 'kb-2', DEMO_CHART, DEMO_QUESTION);
    const text = promptText(inDepthCall(ctx.router));
    const gathered = text.slice(text.indexOf('=== GATHERED KB / EVIDENCE ==='));
    expect(gathered).toContain(`[${kbIndex(inDepthCall(ctx.router), verbatim)}] ${DEMO_ORG} ${DEMO_DOC.year}, ${DEMO_DOC.title} › `);
    expect(gathered).toContain('(safety guidance)');
    expect(envelope.inDepth.status).toBe('complete');
    expect(envelope.inDepth.answer).toContain(verbatim.replace(/\.$/, ''));
    // Dateless knowledge records never become chart events: the temporal facts know only the chart's dates.
    expect(JSON.stringify(envelope.temporalGate ?? {})).not.toContain(String(DEMO_DOC.year));
    const step = await kbStep(ctx.hub, 'kb-2');
    expect(step).toMatchObject({ status: 'ok', transport: 'in_process', mandatory_cap: 8, patient_facts: { treatments: 1, problems: 1, age: true, sex: true } });
    expect(step.mandatory).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(step)).not.toMatch(/warfarin|fibrillation|amoxicillin|sinusitis/i);
  });

  test('every knowledge line of the Answer prompt quotes a committed verbatim byte for byte, its provenance on a line of its own', async () => {
    scriptWriter(ctx.router, verbatim);
    await ask(ctx.hub, 'kb-verbatim', DEMO_CHART, DEMO_QUESTION);
    const committed = new Set<string>(jsonl('mkus.jsonl').map((m) => m.verbatim));
    const lines = promptText(answerCall(ctx.router)).split('\n');
    const head = /^\[\d+\] KnowledgeReference \(source: knowledge-base\): /;
    const quoted = lines.flatMap((l, i) => (head.test(l) ? [{ quote: l.replace(head, ''), next: lines[i + 1] }] : []));
    expect(quoted.length).toBeGreaterThan(3);
    for (const { quote, next } of quoted) {
      expect(committed.has(quote)).toBe(true);
      const mku = jsonl('mkus.jsonl').find((m) => m.verbatim === quote);
      expect(Buffer.from(quote, 'utf8').equals(Buffer.from(mku.verbatim, 'utf8'))).toBe(true);
      // The provenance follows on its own labelled line, never inside the quote.
      expect(next.startsWith(PROVENANCE_LINE.slice(1))).toBe(true);
      const doc = jsonl('documents.jsonl').find((d) => d.doc_id === mku.doc_id);
      expect(next).toContain(`${doc.year}, ${doc.title}`);
      expect(next.endsWith(')')).toBe(true);
    }
  });

  describe('chart detection with knowledge on (decision 20): the chart\'s own records counted apart', () => {
    const QUESTION_3 = `[3] ${DEMO_QUESTION}`;
    const questionOf = (req: RecordedRequest) => promptText(req).split('=== QUESTION ===\n').pop();
    const steps = async (id: string) => (await traceLines(ctx.hub)).filter((l) => l.correlation?.request_id === id).pop()!.steps;

    test.each([
      ['a marked chart', DEMO_CHART],
      ['an earlier message of record lines (no marker)', DEMO_CHART.split('\n').slice(1).join('\n')],
    ])('%s, then a question that begins with [3]: still the question; 3 chart records, knowledge apart', async (_name, chart) => {
      scriptWriter(ctx.router, verbatim);
      const id = `kb-q3-${chart.length}`;
      const { status, envelope } = await ask(ctx.hub, id, chart, QUESTION_3);
      expect(status).toBe(200);
      expect(questionOf(answerCall(ctx.router))).toBe(QUESTION_3);
      const kb = envelope.context.records_by_source['knowledge-base'];
      expect(kb).toBeGreaterThan(0);
      expect(envelope.context.records_by_source).toEqual({ inline: 3, 'knowledge-base': kb });
      expect(envelope.context.ledger_records).toBe(3 + kb);
      const traced = await steps(id);
      expect(traced.find((s: any) => s.role === 'context_source' && s.source === 'inline')).toEqual({ role: 'context_source', source: 'inline', status: 'ok', ledger_records: 3 });
      expect(traced.find((s: any) => s.role === 'context_preparation_timing').records_by_source).toEqual({ inline: 3, 'knowledge-base': kb });
    });

    test('a lone question that begins with [3] is no chart: 0 chart records, the knowledge records alone', async () => {
      scriptWriter(ctx.router, verbatim);
      const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages: [{ role: 'user', content: QUESTION_3 }], context: { request_id: 'kb-q3-alone' } });
      expect(res.status).toBe(200);
      const envelope = JSON.parse(((await res.json()) as any).choices[0].message.content);
      expect(questionOf(answerCall(ctx.router))).toBe(QUESTION_3);
      expect(envelope.context.records_by_source.inline).toBeUndefined();
      expect(envelope.context.records_by_source['knowledge-base']).toBeGreaterThan(0);
      const traced = await steps('kb-q3-alone');
      expect(traced.find((s: any) => s.role === 'context_source' && s.source === 'inline')).toEqual({ role: 'context_source', source: 'inline', status: 'no_chart', ledger_records: 0 });
    });
  });

  test('the engine is open for the source while its routes, mounted, refuse every call (no lsk key configured)', async () => {
    const res = await postJson(`${ctx.hub.url}/v2/context`, { query: DEMO_QUESTION, patient_ehr: {} });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).detail.code).toBe('AUTH_MISSING');
  });

  test('mandatory MKUs that cannot fit → 422 insufficient_context naming them, no router call', async () => {
    const allergies = ['Patient records (most recent first):', '[1] (2026-02-01) Medication: Warfarin 5 mg tablet', ...Array.from({ length: 2500 }, (_, i) => `[${i + 2}] (2025-01-01) Allergy: substance number ${i} with a long reaction description that takes tokens`)].join('\n');
    const { status, json } = await ask(ctx.hub, 'kb-3', allergies, DEMO_QUESTION);
    expect(status).toBe(422);
    expect(json.detail.code).toBe('insufficient_context');
    expect(json.detail.knowledge_references).toContain(`knowledge-base:mku:${DEMO_MKU.id}`);
    expect(json.detail.message).toContain(`knowledge-base:mku:${DEMO_MKU.id} (${DEMO_DOC.title})`);
    expect(json.detail.mandatory_ids).toEqual(expect.arrayContaining(json.detail.knowledge_references));
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });
});

describe('knowledge-base source: the mandatory cap', () => {
  const ctx = useRouterAndHub({ env: { ...DEMO_ENV, KNOWLEDGE_MAX_MANDATORY: '1' } });

  test('beyond the cap safety MKUs are ordinary records and the trace says so', async () => {
    scriptWriter(ctx.router, DEMO_MKU.verbatim);
    const { envelope } = await ask(ctx.hub, 'kb-cap', DEMO_CHART, DEMO_QUESTION);
    const step = await kbStep(ctx.hub, 'kb-cap');
    expect(step).toMatchObject({ status: 'ok', mandatory: 1, mandatory_cap: 1 });
    expect(step.demoted).toBeGreaterThanOrEqual(1);
    const kbIncluded = envelope.context.included.filter((i: any) => String(i.source_id).startsWith('knowledge-base:'));
    expect(kbIncluded.filter((i: any) => i.reason === 'mandatory')).toHaveLength(1);
  });
});

describe('knowledge-base source off (the test default)', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });

  test('a profile declaring it still answers; the source adds nothing and reports off', async () => {
    scriptWriter(ctx.router, DEMO_MKU.verbatim);
    const { status, envelope } = await ask(ctx.hub, 'kb-off', DEMO_CHART, DEMO_QUESTION);
    expect(status).toBe(200);
    expect(ctx.router.chatRequests().some((r) => KB_RECORD.test(promptText(r)))).toBe(false);
    expect(envelope.context.sources).toEqual(['inline']);
    expect(await kbStep(ctx.hub, 'kb-off')).toEqual({ role: 'context_source', source: 'knowledge-base', status: 'off' });
  });
});

describe('knowledge-base source whose engine cannot open (routes not mounted)', () => {
  const ctx = useRouterAndHub({ env: { ...DEMO_ENV, KNOWLEDGE_CONTENT: 'test/fixtures/knowledge/no-such-folder' } });

  test('the hub starts; the source adds nothing and reports unavailable', async () => {
    scriptWriter(ctx.router, DEMO_MKU.verbatim);
    const { status, envelope } = await ask(ctx.hub, 'kb-unavailable', DEMO_CHART, DEMO_QUESTION);
    expect(status).toBe(200);
    expect(envelope.context.sources).toEqual(['inline']);
    expect(await kbStep(ctx.hub, 'kb-unavailable')).toEqual({ role: 'context_source', source: 'knowledge-base', status: 'unavailable' });
  });
});

describe('knowledge-base source over HTTP (a real knowledge service on loopback)', () => {
  let knowledge: TestKnowledge;
  let hang: http.Server;
  const held: http.ServerResponse[] = [];
  beforeAll(async () => {
    knowledge = await startTestKnowledge();
    // A service that accepts and never answers: the timeout case.
    hang = http.createServer((_req, res) => void held.push(res));
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await new Promise<void>((r) => hang.close(() => r()));
    await knowledge.close();
  });
  const env = (extra: Record<string, string>) => ({ HUB_ANCHOR: '2026-03-10', KNOWLEDGE_SOURCE: 'auto', ...extra });

  describe('with a valid key', () => {
    const ctx = useRouterWith({}, (e) => startTestHub({ ...e, ...env({ LOCUS_BASE_URL: knowledge.url, LOCUS_API_KEY: KEYS.open }) }), (h) => h.close());
    const hubOf = () => ctx.hub;

    test('the MKU arrives through POST /v2/context with the bearer key; provenance without the licence the wire omits', async () => {
      scriptWriter(ctx.router, VERBATIM);
      const hub = hubOf();
      const { status, envelope } = await ask(hub, 'kb-http');
      expect(status).toBe(200);
      const ref = envelope.references.find((r: any) => r.index === kbIndex(answerCall(ctx.router), VERBATIM));
      expect(ref.sourceText.startsWith(VERBATIM)).toBe(true);
      expect(ref.provenance).toEqual({ authority: 'Haute Autorité Imaginaire', url: 'https://example.invalid/hai/anticoagulants', version: '2022' });
      expect(await kbStep(hub, 'kb-http')).toMatchObject({ status: 'ok', transport: 'http' });
    });
  });

  describe('the turn\'s abort signal', () => {
    const ctx = useRouterWith({}, (e) => startTestHub({ ...e, ...env({ LOCUS_BASE_URL: `http://127.0.0.1:${(hang.address() as AddressInfo).port}`, LOCUS_TIMEOUT_SECONDS: '600' }) }), (h) => h.close());

    test('a client that goes away during the knowledge call aborts it (the service sees its request closed)', async () => {
      const arrived = new Promise<http.IncomingMessage>((resolve) => hang.once('request', (req) => resolve(req)));
      const ac = new AbortController();
      const res = postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages: [{ role: 'user', content: CHART }, { role: 'user', content: QUESTION }] }, { signal: ac.signal });
      const req = await arrived;
      const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
      ac.abort();
      await res.then((r) => r.text()).catch(() => undefined);
      await closed;
      while (ctx.hub.activeTurns() > 0) await new Promise((r) => setImmediate(r));
      expect(ctx.router.chatRequests()).toHaveLength(0);
    });
  });

  describe.each([
    ['a refused key', () => ({ LOCUS_BASE_URL: knowledge.url, LOCUS_API_KEY: 'lsk_nobody_00000000000000000000000000000000' }), { failure: 'http', http_status: 401 }],
    ['a service that never answers', () => ({ LOCUS_BASE_URL: `http://127.0.0.1:${(hang.address() as AddressInfo).port}`, LOCUS_TIMEOUT_SECONDS: '0.2' }), { failure: 'timeout' }],
  ])('failing: %s', (_name, extra, expected) => {
    const ctx = useRouterWith({}, (e) => startTestHub({ ...e, ...env(extra()) }), (h) => h.close());

    test('degrades to no knowledge records with a trace flag; the turn answers', async () => {
      scriptWriter(ctx.router, VERBATIM);
      const hub = ctx.hub;
      const { status, envelope } = await ask(hub, 'kb-fail');
      expect(status).toBe(200);
      expect(envelope.context.sources).toEqual(['inline']);
      expect(ctx.router.chatRequests().some((r) => KB_RECORD.test(promptText(r)))).toBe(false);
      const step = await kbStep(hub, 'kb-fail');
      expect(step).toMatchObject({ status: 'failed', transport: 'http', ...expected });
      expect(JSON.stringify(step)).not.toContain('lsk_');
    });
  });
});
