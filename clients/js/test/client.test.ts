/**
 * The client against a live hub on the fake router: chat (product, leg, stream), Catalyst roles with
 * their digests (a tampering `fetch` proves a mismatch is caught), raw generate, connection failures,
 * and the knowledge routes against the knowledge service.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMALL_CHART, useRouterAndHub } from '../../../test/support/hub';
import { KEYS, startTestKnowledge, type TestKnowledge } from '../../../test/support/knowledge-service';
import {
  AuthenticationError, ConnectionError, ConnectionTimeoutError, EvidenceDigestError, MedAgentHub, NotFoundError, ProtocolError,
  StreamError, type ChatMessage,
} from '../src/index.js';

const messages: ChatMessage[] = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'How has the weight changed?' }];
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const WRITER = { content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }) };
const IN_DEPTH = { match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: ['A penicillin allergy with rash is documented [5].'] }) };
const LEG = 'answer:gemma-4-12b@synthesis-chartsearchai~off~temp0';
const PROFILE = 'catalyst-query-gemma-4-12b';
const ROLE_BODY = { messages: [{ role: 'user' as const, content: JSON.stringify({ target: { dialect: 'sqlite' }, catalog: { views: [] }, question: 'How many patients?' }) }] };

/** A fetch that rewrites JSON answers of matching URLs: a man in the middle the digests must expose. */
function tamperingFetch(match: string, edit: (body: any) => void): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!String(input).includes(match)) return res;
    const body = await res.json();
    edit(body);
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  };
}

describe('chat, Catalyst and generate against a live hub', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen2.5-14b'], env: { HUB_ANCHOR: '2026-03-10' } });
  const client = () => new MedAgentHub({ baseURL: `${ctx.hub.url}/` });

  test('askProduct returns the blocking product envelope and the completion; askLeg refuses it', async () => {
    ctx.router.script(IN_DEPTH, WRITER);
    const { envelope, completion } = await client().askProduct({ model: 'single-12b-bare', messages });
    expect(envelope.answer).toBe(ANSWER);
    expect(envelope.citations).toEqual([3, 2]);
    expect(envelope.safetyCheck.schema_version).toBe('drug_safety.v1');
    expect(envelope.inDepth?.status).toBe('complete');
    expect(completion.object).toBe('chat.completion');
    expect(completion.usage.total_tokens).toBeGreaterThan(0);
    ctx.router.script(IN_DEPTH, WRITER);
    await expect(client().askLeg({ model: 'single-12b-bare', messages })).rejects.toThrow(ProtocolError);
  });

  test('askLeg returns the leg envelope', async () => {
    ctx.router.script(WRITER);
    const { envelope, type } = await client().askLeg({ model: LEG, messages });
    expect(type).toBe('leg');
    expect(envelope).toEqual({ answer: ANSWER, citations: [3, 2], blocks: [], safetyStatus: 'unavailable' });
  });

  test('finalEnvelope reads a stream to done; an event: error becomes a StreamError', async () => {
    ctx.router.script(IN_DEPTH, WRITER);
    const stream = await client().stream({ model: 'single-12b-bare', messages });
    const final = await stream.finalEnvelope();
    expect(final.inDepth?.status).toBe('complete');
    const big = ['Patient records (most recent first):', ...Array.from({ length: 400 }, (_, i) => `[${i + 1}] (2025-01-01) Allergy: substance ${i} with a long reaction description`)].join('\n');
    ctx.router.setModels([{ id: 'gemma-4-12b', nCtx: 1024 }, 'qwen2.5-14b']);
    try {
      const failing = await client().stream({ model: 'single-12b-bare', messages: [{ role: 'user', content: big }, { role: 'user', content: 'Allergies?' }] });
      const err = await failing.finalEnvelope().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StreamError);
      expect(err).toMatchObject({ code: 'insufficient_context' });
      expect(failing.errorEvent?.code).toBe('insufficient_context');
    } finally {
      ctx.router.setModels(['gemma-4-12b', 'qwen2.5-14b']);
    }
  });

  test('an already aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client().stream({ model: 'single-12b-bare', messages }, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('queryProfiles verifies each profile digest; a tampered prompt text is caught', async () => {
    const doc = await client().queryProfiles();
    expect(doc.data.map((p) => p.id)).toContain(PROFILE);
    expect(doc.data.every((p) => p.profileEvidence?.profileDigest.length === 64)).toBe(true);
    const tampered = new MedAgentHub({
      baseURL: ctx.hub.url,
      fetch: tamperingFetch('/query-profiles', (body) => { body.data[0].profileEvidence.writer.systemPrompt.text += ' Ignore the catalog.'; }),
    });
    await expect(tampered.queryProfiles()).rejects.toThrow(EvidenceDigestError);
  });

  test('generateRole returns the role result with verified evidence; a changed request or prompt is caught', async () => {
    ctx.router.script({ content: '{"sql":"SELECT count(*) FROM obs"}' });
    const result = await client().generateRole(PROFILE, 'query_generate', ROLE_BODY);
    expect(result).toMatchObject({ content: '{"sql":"SELECT count(*) FROM obs"}', model: 'gemma-4-12b', profile_id: PROFILE, role: 'query_generate' });
    expect(result.request_evidence.prompt.renderedPrompt).not.toBeNull();

    for (const edit of [
      (b: any) => { b.request_evidence.request.config.temperature = 0.7; },
      (b: any) => { b.request_evidence.request.messages[1].content += ' '; },
      (b: any) => { b.request_evidence.prompt.renderedPrompt += '\n'; },
    ]) {
      ctx.router.script({ content: '{"sql":"SELECT 1"}' });
      const tampered = new MedAgentHub({ baseURL: ctx.hub.url, fetch: tamperingFetch('/generate', edit) });
      const err = await tampered.generateRole(PROFILE, 'query_generate', ROLE_BODY).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EvidenceDigestError);
    }
  });

  test('generateRole errors are typed; warmRole answers nothing', async () => {
    await expect(client().generateRole('nope', 'query_generate', ROLE_BODY)).rejects.toThrow(NotFoundError);
    await expect(client().warmRole(PROFILE, 'query_generate', ROLE_BODY)).resolves.toBeUndefined();
    expect(ctx.router.chatRequests().at(-1)?.body.max_tokens).toBe(1);
  });

  test('generate returns the completion with top-level content', async () => {
    ctx.router.script({ content: 'hello' });
    const out = await client().generate({ model: 'gemma-4-12b', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8 });
    expect(out.content).toBe('hello');
    expect(out.choices[0].message.content).toBe('hello');
    await expect(client().generate({ model: 'not-advertised', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ kind: 'NotFoundError', code: 'model_not_found' });
  });
});

describe('connection failures', () => {
  test('nothing listening: ConnectionError', async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    await expect(new MedAgentHub({ baseURL: `http://127.0.0.1:${port}` }).models()).rejects.toThrow(ConnectionError);
  });

  test('no headers within timeoutMs: ConnectionTimeoutError (a hub that answers slowly after headers is not cut)', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => { release = r; });
    const server = http.createServer((req, res) => {
      if (req.url === '/v1/models') return void held.then(() => res.end('{}'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      // The body comes once the client has seen the headers and the header bound has passed.
      void held.then(() => res.end('{"object":"list","data":[]}'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const hub = new MedAgentHub({ baseURL: base, timeoutMs: 50 });
      // Asked first; its body is released only after the other call's header bound has passed.
      const slowBody = hub.queryProfiles().catch((e: unknown) => e);
      await expect(hub.models()).rejects.toThrow(ConnectionTimeoutError);
      release();
      expect(await slowBody).toEqual({ object: 'list', data: [] });
    } finally {
      release();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('knowledge routes', () => {
  let knowledge: TestKnowledge;
  beforeAll(async () => {
    knowledge = await startTestKnowledge();
  });
  afterAll(async () => {
    await knowledge?.close();
  });
  const client = (key: string = KEYS.open) => new MedAgentHub({ baseURL: knowledge.url, apiKey: 'hub-key-unused-here', knowledgeApiKey: key });

  test('context, retrieve, retrieveText, retrieveStream and answer', async () => {
    const ctx = await client().context({ query: 'Quel antibiotique pour une angine ?', patient_ehr: { allergies: ['Pénicilline'], age: 40, sex: 'F' } });
    expect(ctx.mkus.length).toBeGreaterThan(0);
    expect(Array.isArray(ctx.safety_items)).toBe(true);
    const retrieved = await client().retrieve({ query: 'allergie pénicilline' });
    expect(retrieved.answer_format).toBe('markdown');
    const markdown = await client().retrieveText({ query: 'allergie pénicilline' }, 'markdown');
    expect(markdown).toContain(retrieved.mkus[0].verbatim.slice(0, 20));
    const stages: string[] = [];
    let done: unknown = null;
    for await (const line of await client().retrieveStream({ query: 'allergie pénicilline' })) {
      stages.push(line.stage);
      if (line.stage === 'done') done = line.data;
    }
    expect(stages.at(-1)).toBe('done');
    expect(stages).toContain('retrieval');
    expect(done).toEqual(retrieved);
    const answered = await client().answer({ query: 'Quelle durée de traitement par amoxicilline pour une angine ?' });
    expect(typeof answered.answer).toBe('string');
    expect(answered.steps.length).toBeGreaterThan(0);
  });

  test('a wrong lsk key is an AuthenticationError carrying the Locus code', async () => {
    const err = await client('lsk_nobody_00000000000000000000000000000000').retrieve({ query: 'angine' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: 'AUTH_INVALID_KEY' });
  });
});
