/**
 * The four knowledge endpoints over HTTP on the synthetic fixtures: every response validates against its
 * published schema; Accept negotiation; escaping HTML; NDJSON framing; decision-18 validation errors;
 * mounted in the hub behind lsk_ keys (not HUB_API_KEYS).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileKnowledgeSchema } from '../../server/knowledge/http/validate';
import { NOT_FOUND_ANSWER } from '../../server/knowledge/pipeline/answer';
import { FakeRouter } from '../support/fake-router';
import { startTestHub } from '../support/hub';
import { FIXTURES, KEYS, post, sha256, startTestKnowledge, writeScriptContent, type TestKnowledge } from '../support/knowledge-service';

const schemas = {
  context: compileKnowledgeSchema('MkuContextResponse'),
  retrieve: compileKnowledgeSchema('RetrieveResponse'),
  line: compileKnowledgeSchema('RetrieveStreamLine'),
  answer: compileKnowledgeSchema('AnswerResponse'),
  invalid: compileKnowledgeSchema('KnowledgeValidationError'),
};

function expectValid(validate: (typeof schemas)[keyof typeof schemas], body: unknown) {
  const ok = validate(body);
  if (!ok) throw new Error(`schema: ${JSON.stringify(validate.errors)}`);
}


let k: TestKnowledge;
let tmp: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-kcontent-'));
  k = await startTestKnowledge({ KNOWLEDGE_CONTENT: `${FIXTURES},${writeScriptContent(tmp)}` });
});
afterAll(async () => {
  await k.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const allergic = { query: 'Quel antibiotique pour une angine ?', patient_ehr: { allergies: ['Pénicilline'], age: 40, sex: 'F' } };

describe('POST /v2/context', () => {
  test('validates against MkuContextResponse, with safety items and the trace', async () => {
    const res = await post(`${k.url}/v2/context`, allergic);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expectValid(schemas.context, body);
    expect(body.safety_items.length).toBeGreaterThan(0);
    expect(body.trace.config).toMatchObject({ judge: 'proxy', agent: 'off', store: 'sqlite', mku_sim_topk: 12 });
    expect(body).not.toHaveProperty('answer');
  });

  test('fallback_only and agent_enabled responses validate too', async () => {
    for (const opts of [{ mode: 'fallback_only' }, { agent_enabled: true, judge_enabled: true }, { judge_sufficiency_cutoff: 1 }]) {
      const body = (await (await post(`${k.url}/v2/context`, { ...allergic, opts })).json()) as any;
      expectValid(schemas.context, body);
    }
  });

  test.each([
    [{ patient_ehr: {} }, [{ loc: ['body', 'query'], msg: 'Field required', type: 'missing' }]],
    [{ query: '', patient_ehr: {} }, [{ loc: ['body', 'query'], type: 'string_too_short' }]],
    [{ query: 'q' }, [{ loc: ['body', 'patient_ehr'], type: 'missing' }]],
    [{ query: 'q', patient_ehr: { age: 'forty' } }, [{ loc: ['body', 'patient_ehr', 'age'], type: 'int_type', input: 'forty' }]],
    [{ query: 'q', patient_ehr: {}, opts: { mku_sim_topk: 0, mode: 'fast' } }, [{ loc: ['body', 'opts', 'mode'], type: 'enum', input: 'fast' }, { loc: ['body', 'opts', 'mku_sim_topk'], type: 'greater_than_equal', ctx: { ge: 1 } }]],
    [{ query: 'q', patient_ehr: { allergies: ['x', 3] } }, [{ loc: ['body', 'patient_ehr', 'allergies', 1], type: 'string_type' }]],
  ])('422 with the Locus detail list and the error object: %j', async (input, detail) => {
    const res = await post(`${k.url}/v2/context`, input);
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expectValid(schemas.invalid, body);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error' });
    expect(body.detail).toEqual(detail.map((d) => expect.objectContaining(d)));
  });

  test('malformed JSON is refused as bad input (400), never a crash', async () => {
    const res = await post(`${k.url}/v2/context`, '{"query": ');
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('invalid_request_error');
  });

  test('include_unreviewed outside test: 403 unreviewed_not_allowed', async () => {
    const res = await post(`${k.url}/v2/context`, { ...allergic, opts: { include_unreviewed: true } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).detail.code).toBe('unreviewed_not_allowed');
  });
});

describe('POST /v2/retrieve', () => {
  test('JSON (default) validates against RetrieveResponse', async () => {
    const res = await post(`${k.url}/v2/retrieve`, { query: 'Quel antibiotique pour une angine ?', patient_ehr: 'allergie pénicilline' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as any;
    expectValid(schemas.retrieve, body);
    expect(body.mkus.length).toBeGreaterThan(0);
    expect(body.answer).toContain(`[${body.mkus[0].id}]`);
    expect(body.cross_refs.length).toBeGreaterThan(0);
  });

  test('k = 0 disables the MKU and the document paths', async () => {
    const body = (await (await post(`${k.url}/v2/retrieve`, { query: 'angine', mku_k: 0, chunk_k: 0 })).json()) as any;
    expectValid(schemas.retrieve, body);
    expect(body.mkus).toEqual([]);
    expect(body.chunks).toEqual([]);
    expect(body.answer).toBe(NOT_FOUND_ANSWER);
  });

  test('text/markdown: answer plus provenance', async () => {
    const res = await post(`${k.url}/v2/retrieve`, { query: 'angine' }, { accept: 'text/markdown' });
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
    const md = await res.text();
    expect(md).toMatch(/^# angine\n/);
    expect(md).toContain('## Provenance');
    expect(md).toContain("Angine aiguë de l'adulte (fictif)");
  });

  test('text/html: an MKU holding <script> shows as text', async () => {
    const res = await post(`${k.url}/v2/retrieve`, { query: 'zanzibarite' }, { accept: 'text/html' });
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; cie.');
    expect(html).toContain('Titre &lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('<blockquote>');
  });

  test('an Accept none of the three types satisfies: 406', async () => {
    const res = await post(`${k.url}/v2/retrieve`, { query: 'angine' }, { accept: 'application/xml' });
    expect(res.status).toBe(406);
    expect(((await res.json()) as any).detail.code).toBe('not_acceptable');
  });
});

describe('POST /v2/retrieve/stream', () => {
  test('one JSON object per line, stages then done with the full /v2/retrieve body', async () => {
    const input = { query: 'Quel antibiotique pour une angine ?', deliberate: true, history: [{ question: 'Bonjour', answer_short: '' }] };
    const res = await post(`${k.url}/v2/retrieve/stream`, input);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n').map((l) => JSON.parse(l));
    for (const l of lines) expectValid(schemas.line, l);
    expect(lines.map((l) => l.stage)).toEqual(['query_maker', 'retrieval', 'deliberation', 'answer', 'done']);
    const blocking = (await (await post(`${k.url}/v2/retrieve`, input)).json()) as any;
    expect(lines.at(-1).data).toEqual(blocking);
  });

  test('a bad body is a 422 before any line', async () => {
    const res = await post(`${k.url}/v2/retrieve/stream`, { query: 'q', mku_weight: 2 });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).detail[0]).toMatchObject({ loc: ['body', 'mku_weight'], type: 'less_than_equal' });
  });
});

describe('POST /v1/answer', () => {
  test('validates; sources de-duplicated by reco_id; steps; evidence stacks', async () => {
    const body = (await (await post(`${k.url}/v1/answer`, { query: 'allergie pénicilline', source_ids: null })).json()) as any;
    expectValid(schemas.answer, body);
    expect(body.answer).toContain('[mku_doc_angine_2024_');
    const recoIds = body.sources.map((s: any) => s.reco_id);
    expect(new Set(recoIds).size).toBe(recoIds.length);
    expect(body.sources[0]).toEqual({ reco_id: 101, reco_title: "Angine aiguë de l'adulte (fictif)", source_name: 'SFR', deep_link: 'https://example.invalid/sfr/angine-2024' });
    expect(body.steps.map((s: any) => s.tool)).toEqual(['search', 'rank', 'answer']);
    expect(body.evidence[0]).toMatchObject({ id: expect.stringMatching(/^src[0-9a-f]{10}$/), org: 'Société Fictive de Recommandations', year: '2024', page: expect.any(Number) });
  });

  test('source_ids narrows what is quoted to the allowed sources', async () => {
    const all = (await (await post(`${k.url}/v1/answer`, { query: 'allergie pénicilline' })).json()) as any;
    expect(all.sources.map((s: any) => s.source_name)).toContain('SFR');
    const sfr = (await (await post(`${k.url}/v1/answer`, { query: 'allergie pénicilline', source_ids: [1] })).json()) as any;
    expectValid(schemas.answer, sfr);
    expect(sfr.sources.length).toBeGreaterThan(0);
    expect(sfr.sources.every((s: any) => s.source_name === 'SFR')).toBe(true);
    expect(sfr.steps[0].out.source_filter).toBe('applied');
    const none = (await (await post(`${k.url}/v1/answer`, { query: 'allergie pénicilline', source_ids: [999] })).json()) as any;
    expect(none.answer).toBe(NOT_FOUND_ANSWER);
    expect(none.sources).toEqual([]);
  });

  test('nothing passes the judge: the fixed not-found sentence', async () => {
    const body = (await (await post(`${k.url}/v1/answer`, { query: 'xyzzy plugh' })).json()) as any;
    expectValid(schemas.answer, body);
    expect(body.answer).toBe(NOT_FOUND_ANSWER);
    expect(body.sources).toEqual([]);
  });
});

describe('mounted in the hub', () => {
  test('the routes answer lsk_ keys, not HUB_API_KEYS; /openapi.json lists them', async () => {
    const router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    const hubKey = 'hub-secret';
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_API_KEYS: sha256(hubKey), KNOWLEDGE_DB_PATH: ':memory:', KNOWLEDGE_CONTENT: FIXTURES, KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.open) });
    try {
      expect((await post(`${hub.url}/v2/context`, allergic)).status).toBe(200);
      expect((await post(`${hub.url}/v2/context`, allergic, { authorization: `Bearer ${hubKey}` })).status).toBe(401);
      const doc = (await (await fetch(`${hub.url}/openapi.json`, { headers: { authorization: `Bearer ${hubKey}` } })).json()) as any;
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v2/context', '/v2/retrieve', '/v2/retrieve/stream', '/v1/answer']));
      expect(doc.components.schemas.MkuContextResponse.required).toEqual(['query', 'mkus', 'trace']);
      expect(doc.components.securitySchemes.lsk).toMatchObject({ type: 'http', scheme: 'bearer' });
      // The hub's own routes still need the hub key.
      expect((await fetch(`${hub.url}/v1/models`, { headers: { authorization: `Bearer ${KEYS.open}` } })).status).toBe(403);
    } finally {
      await hub.close();
      await router.stop();
    }
  });

  test('KNOWLEDGE_JUDGE_MODEL: judge_enabled asks the router, which never sees the patient facts', async () => {
    const router = new FakeRouter({ models: ['gemma-4-12b'] });
    router.script({ match: { contains: 'Extraits' }, content: '{"score": 0.95, "rationale": "les extraits répondent"}' });
    await router.start();
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, KNOWLEDGE_DB_PATH: ':memory:', KNOWLEDGE_CONTENT: FIXTURES, KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.open), KNOWLEDGE_JUDGE_MODEL: 'gemma-4-12b' });
    try {
      const body = (await (await post(`${hub.url}/v2/context`, { ...allergic, opts: { judge_enabled: true } })).json()) as any;
      expectValid(schemas.context, body);
      expect(body.trace).toMatchObject({ judge_score: 0.95, judge_sufficient: true, judge_rationale: 'model: les extraits répondent' });
      expect(body.trace.config).toMatchObject({ judge: 'model', judge_model: 'gemma-4-12b' });
      const calls = router.requests.filter((r) => r.path.includes('chat'));
      expect(calls).toHaveLength(1);
      expect(JSON.stringify(calls[0].body)).not.toContain('Pénicilline');
      const plain = (await (await post(`${hub.url}/v2/context`, allergic)).json()) as any;
      expect(plain.trace.config.judge).toBe('proxy');
      expect(router.requests.filter((r) => r.path.includes('chat'))).toHaveLength(1);
    } finally {
      await hub.close();
      await router.stop();
    }
  });

  test('a missing key file stops hub start-up with a message naming it', async () => {
    await expect(startTestHub({ LLM_BASE_URL: 'http://127.0.0.1:9', KNOWLEDGE_KEYS_FILE: '/nonexistent/keys.json', KNOWLEDGE_DB_PATH: ':memory:' })).rejects.toThrow('/nonexistent/keys.json: cannot read the knowledge key file (ENOENT)');
  });

  describe('decision 30: the routes answer on every hub', () => {
    const PATHS = ['/v2/context', '/v2/retrieve', '/v2/retrieve/stream', '/v1/answer', '/mcp'];
    let router: FakeRouter;
    beforeAll(async () => {
      router = new FakeRouter({ models: ['gemma-4-12b'] });
      await router.start();
    });
    afterAll(async () => {
      await router.stop();
    });

    test('a default hub (no key configured, knowledge-base source on): 401 AUTH_MISSING naming the settings, never a 404', async () => {
      const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, KNOWLEDGE_SOURCE: 'auto' });
      try {
        for (const p of PATHS) {
          const res = await post(`${hub.url}${p}`, allergic);
          expect([p, res.status]).toEqual([p, 401]);
          expect(res.headers.get('www-authenticate')).toBe('Bearer');
          const body = (await res.json()) as any;
          expect(body.detail.code).toBe('AUTH_MISSING');
          expect(body.error).toMatchObject({ code: 'AUTH_MISSING', message: body.detail.message });
          for (const setting of ['KNOWLEDGE_KEYS_FILE', 'KNOWLEDGE_API_KEY_HASHES', 'KNOWLEDGE_AUTH=off']) expect(body.error.message).toContain(setting);
        }
        // Even a well-formed key is refused: none is configured, and the message says so rather than "invalid key".
        const keyed = (await (await post(`${hub.url}/v2/retrieve`, { query: 'angine' }, { authorization: `Bearer ${KEYS.almapro}` })).json()) as any;
        expect(keyed.detail.code).toBe('AUTH_MISSING');
        expect((await fetch(`${hub.url}/mcp`)).status).toBe(401);
        const root = (await (await fetch(`${hub.url}/`)).json()) as any;
        expect(root.knowledge).toEqual({ routes: 'locked', paths: PATHS, auth: 'keys', clients: 0, note: keyed.error.message });
        // The hub's own routes are unaffected.
        expect((await fetch(`${hub.url}/v1/models`)).status).toBe(200);
        expect(router.requests.filter((r) => r.path.includes('chat'))).toHaveLength(0);
      } finally {
        await hub.close();
      }
    });

    test('KNOWLEDGE_AUTH=off: the routes are open on a trusted network', async () => {
      const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, KNOWLEDGE_AUTH: 'off', KNOWLEDGE_CONTENT: FIXTURES });
      try {
        const res = await post(`${hub.url}/v2/context`, allergic);
        expect(res.status).toBe(200);
        expectValid(schemas.context, await res.json());
        expect(((await (await fetch(`${hub.url}/`)).json()) as any).knowledge).toMatchObject({ routes: 'serving', auth: 'off', clients: 0 });
      } finally {
        await hub.close();
      }
    });

    test('KNOWLEDGE_ENABLED=false removes them: a 404 that says so, and / says so', async () => {
      const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, KNOWLEDGE_ENABLED: 'false', KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.almapro) });
      try {
        for (const p of PATHS) {
          const res = await post(`${hub.url}${p}`, allergic, { authorization: `Bearer ${KEYS.almapro}` });
          expect([p, res.status]).toEqual([p, 404]);
          expect(((await res.json()) as any).error.message).toContain('KNOWLEDGE_ENABLED=false');
        }
        const root = (await (await fetch(`${hub.url}/`)).json()) as any;
        expect(root.knowledge).toMatchObject({ routes: 'removed', note: expect.stringContaining('KNOWLEDGE_ENABLED=false') });
      } finally {
        await hub.close();
      }
    });
  });
});
