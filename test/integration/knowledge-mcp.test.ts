/**
 * The knowledge layer's MCP tools at /mcp, driven by the official SDK client over loopback: exactly three
 * tools; each tool's structuredContent matches its REST route for the same input (same MKU ids) and its
 * content is text; lsk_ auth before the MCP layer (401/403 in the decision-1 shape); one quota unit per
 * tool call, shared with the REST routes; invalid arguments come back as MCP tool errors; a verbatim
 * holding <script> comes back as plain text; the body limit holds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { compileKnowledgeSchema } from '../../server/knowledge/http/validate';
import { FakeRouter } from '../support/fake-router';
import { startTestHub } from '../support/hub';
import { groupSearch, searchContextRequest, type SearchInput } from '../../server/knowledge/mcp/search';
import type { ContextResponse } from '../../server/knowledge/pipeline/types';
import { FIXTURES, KEYS, post, sha256, startTestKnowledge, writeScriptContent, type TestKnowledge } from '../support/knowledge-service';


const QUOTA = 3;
let k: TestKnowledge;
let tmp: string;
const clients: Client[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-kmcp-'));
  k = await startTestKnowledge({ KNOWLEDGE_CONTENT: `${FIXTURES},${writeScriptContent(tmp)}`, HUB_MAX_BODY_BYTES: '4096' }, { quota: QUOTA });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await k.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function connect(authorization?: string, base = k.url): Promise<Client> {
  const client = new Client({ name: 'knowledge-mcp-test', version: '0.0.0' });
  const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

type ToolOut = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as ToolOut;

function textOf(r: ToolOut): string {
  expect(r.content).toHaveLength(1);
  expect(r.content[0].type).toBe('text');
  return r.content[0].text ?? '';
}

const allergic = { query: 'Quel antibiotique pour une angine ?', patient_ehr: { allergies: ['Pénicilline'], age: 40, sex: 'F' } };
const ids = (mkus: Array<{ id: string }>) => mkus.map((m) => m.id);

describe('tools over the REST pipeline', () => {
  let c: Client;
  beforeAll(async () => {
    c = await connect(`Bearer ${KEYS.open}`);
  });

  test('lists exactly search, answer and context, each with input and output schemas', async () => {
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['answer', 'context', 'search']);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(search.inputSchema.properties).toMatchObject({ limit: { default: 10 }, max_chunks_per_unit: { default: 3 } });
  });

  test('context: structuredContent is the /v2/context body for the same input (same MKU ids, safety items)', async () => {
    const rest = (await (await post(`${k.url}/v2/context`, allergic)).json()) as ContextResponse;
    const r = await call(c, 'context', allergic);
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as unknown as ContextResponse;
    expect(compileKnowledgeSchema('MkuContextResponse')(s)).toBe(true);
    expect(ids(s.mkus)).toEqual(ids(rest.mkus));
    expect(s.safety_items).toEqual(rest.safety_items);
    expect(s.safety_items.length).toBeGreaterThan(0);
    expect(s.conflicts).toEqual(rest.conflicts);
    expect(s.cross_refs).toEqual(rest.cross_refs);
    expect(s.trace.config).toEqual(rest.trace.config);
    const text = textOf(r);
    for (const id of s.safety_items) expect(text).toContain(id);
    expect(text).toContain(rest.mkus[0].verbatim.split('\n')[0]);
  });

  test('context: patient_ehr is optional (absent = no patient facts, as {} on the route)', async () => {
    const rest = (await (await post(`${k.url}/v2/context`, { query: allergic.query, patient_ehr: {} })).json()) as ContextResponse;
    const s = (await call(c, 'context', { query: allergic.query })).structuredContent as unknown as ContextResponse;
    expect(ids(s.mkus)).toEqual(ids(rest.mkus));
  });

  test('answer: structuredContent is the /v1/answer body for the same input', async () => {
    const input = { query: "Quelle durée de traitement par amoxicilline pour une angine ?" };
    const rest = (await (await post(`${k.url}/v1/answer`, input)).json()) as Record<string, unknown>;
    const r = await call(c, 'answer', input);
    expect(compileKnowledgeSchema('AnswerResponse')(r.structuredContent)).toBe(true);
    expect(r.structuredContent).toEqual(rest);
    expect(textOf(r)).toContain(rest.answer as string);
  });

  // `binds`: on the fixtures, the per-unit cap drops some of the route's (non-safety) MKUs.
  test.each<[string, SearchInput, boolean]>([
    ['defaults, with a patient', { query: allergic.query, patient_ehr: allergic.patient_ehr }, true],
    ['two units of two chunks', { query: allergic.query, limit: 2, max_chunks_per_unit: 2 }, true],
    ['one chunk per unit, with a patient', { query: allergic.query, limit: 2, max_chunks_per_unit: 1, patient_ehr: allergic.patient_ehr }, false],
    ['no patient', { query: 'allergie pénicilline', limit: 5 }, true],
  ])('search (%s): the /v2/context MKUs of the documented mapping, grouped by document', async (_name, input, binds) => {
    const rest = (await (await post(`${k.url}/v2/context`, searchContextRequest(input))).json()) as ContextResponse;
    const r = await call(c, 'search', input as unknown as Record<string, unknown>);
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as unknown as ReturnType<typeof groupSearch>;
    expect(s).toEqual(groupSearch(input, rest));
    const limit = input.limit ?? 10;
    const perUnit = input.max_chunks_per_unit ?? 3;
    const safety = new Set(rest.safety_items);
    const flat = s.units.flatMap((u) => u.chunks.map((m) => m.id));
    const restIds = ids(rest.mkus);
    // Every listed MKU is one of the route's, each at most once; no safety item is ever dropped.
    expect(new Set(flat).size).toBe(flat.length);
    for (const id of flat) expect(restIds).toContain(id);
    for (const id of safety) expect(flat).toContain(id);
    const plain = s.units.map((u) => u.chunks.filter((m) => !m.safety_critical && !safety.has(m.id)).length);
    expect(plain.slice(0, limit).every((n) => n <= perUnit)).toBe(true);
    expect(plain.slice(limit).every((n) => n === 0)).toBe(true);
    expect(s.units.length).toBeGreaterThan(0);
    if (binds) expect(flat.length).toBeLessThan(restIds.length);
    else expect(flat.length).toBe(restIds.length);
    expect(textOf(r)).toContain('# Recherche');
  });

  test('search with caps that do not bind lists every MKU of the route', async () => {
    const input = { query: allergic.query, limit: 50, max_chunks_per_unit: 20 };
    const rest = (await (await post(`${k.url}/v2/context`, searchContextRequest(input))).json()) as ContextResponse;
    const s = (await call(c, 'search', input)).structuredContent as unknown as ReturnType<typeof groupSearch>;
    expect(s.units.flatMap((u) => u.chunks.map((m) => m.id)).sort()).toEqual(ids(rest.mkus).sort());
  });

  test('an MKU holding <script> comes back as plain text, unescaped and not HTML', async () => {
    for (const tool of ['search', 'context', 'answer']) {
      const r = await call(c, tool, { query: 'zanzibarite' });
      const text = textOf(r);
      expect(text).toContain('La zanzibarite se traite <script>alert("x")</script> & cie.');
      expect(text).not.toMatch(/&lt;|&amp;|<html|<p>|<blockquote>/);
      expect(JSON.stringify(r.structuredContent)).toContain('<script>alert(\\"x\\")</script>');
    }
  });

  test.each([
    ['search', { query: '' }],
    ['search', { query: 'q', limit: 0 }],
    ['search', { query: 'q', max_chunks_per_unit: 'three' }],
    ['context', { query: 'q', patient_ehr: { age: 'forty' } }],
    ['answer', {}],
    ['answer', { query: 'q', source_ids: ['x'] }],
  ])('%s with invalid arguments %j is an MCP tool error, and the server carries on', async (tool, args) => {
    const r = await call(c, tool, args);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Input validation error/);
    expect((await c.listTools()).tools).toHaveLength(3);
  });

  test('an unknown tool is an MCP error; a refused option is a tool error naming its code', async () => {
    expect((await call(c, 'analyse', { query: 'q' })).isError).toBe(true);
    const r = await call(c, 'context', { query: 'q', opts: { include_unreviewed: true } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^unreviewed_not_allowed: /);
  });
});

describe('auth and quota', () => {
  const code = (status: number, c: string) => ({ code: status, message: expect.stringContaining(`"code":"${c}"`) });

  test('no key: 401 AUTH_MISSING (decision-1 shape) before the MCP layer; the SDK client is refused', async () => {
    await expect(connect()).rejects.toMatchObject(code(401, 'AUTH_MISSING'));
    const res = await fetch(`${k.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({ error: { code: 'AUTH_MISSING' }, detail: { code: 'AUTH_MISSING' } });
  });

  test('malformed key: AUTH_INVALID_FORMAT; unknown key: AUTH_INVALID_KEY; inactive client: 403', async () => {
    await expect(connect('Bearer lsk_almapro_nothex')).rejects.toMatchObject(code(401, 'AUTH_INVALID_FORMAT'));
    await expect(connect(`Bearer lsk_almapro_${'9'.repeat(32)}`)).rejects.toMatchObject(code(401, 'AUTH_INVALID_KEY'));
    await expect(connect(`Bearer ${KEYS.dormant}`)).rejects.toMatchObject(code(403, 'AUTH_CLIENT_INACTIVE'));
  });

  test('GET and DELETE: the key is checked, then 405 (stateless: no stream, no session)', async () => {
    expect((await fetch(`${k.url}/mcp`)).status).toBe(401);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${k.url}/mcp`, { method, headers: { authorization: `Bearer ${KEYS.open}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  test('a body over the service limit is 413, before the MCP layer', async () => {
    const res = await post(`${k.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(8000) } } }, { accept: 'application/json, text/event-stream' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('request_too_large');
  });

  test(`a quota of ${QUOTA} allows ${QUOTA} tool calls (listing is free, REST shares the counter), then RATE_LIMIT`, async () => {
    const c = await connect(`Bearer ${KEYS.almapro}`);
    for (let i = 0; i < 3; i++) expect((await c.listTools()).tools).toHaveLength(3);
    for (let i = 0; i < QUOTA - 1; i++) expect((await call(c, 'answer', { query: 'angine' })).isError).toBeFalsy();
    expect((await post(`${k.url}/v2/context`, allergic, { authorization: `Bearer ${KEYS.almapro}` })).status).toBe(200);
    await expect(call(c, 'search', { query: 'angine' })).rejects.toMatchObject(code(429, 'RATE_LIMIT'));
    expect((await c.listTools()).tools).toHaveLength(3);
    expect((await post(`${k.url}/v2/context`, allergic, { authorization: `Bearer ${KEYS.almapro}` })).status).toBe(429);
    // A new UTC day starts the count again.
    k.clock.now = new Date('2026-12-02T00:00:01Z');
    expect((await call(c, 'search', { query: 'angine' })).isError).toBeFalsy();
    // A batch costs one unit per tools/call in it, all or none: 3 do not fit in the 2 left, 2 do.
    const batch = (n: number) => post(`${k.url}/mcp`, Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'answer', arguments: { query: 'angine' } } })), { authorization: `Bearer ${KEYS.almapro}`, accept: 'application/json, text/event-stream' });
    expect((await batch(3)).status).toBe(429);
    const ok = await batch(2);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Array<{ result: ToolOut }>).map((m) => m.result.isError ?? false)).toEqual([false, false]);
    await expect(call(c, 'answer', { query: 'angine' })).rejects.toMatchObject(code(429, 'RATE_LIMIT'));
  });

  test('log lines name the client and the tool, never the key, the query or patient facts', () => {
    const logs = k.logs.join('\n');
    expect(logs).toMatch(/"endpoint":"mcp","tool":"search"/);
    for (const secret of [KEYS.open, KEYS.almapro, 'antibiotique', 'Pénicilline', 'zanzibarite', 'amoxicilline']) expect(logs).not.toContain(secret);
  });
});

test('mounted in the hub with the knowledge routes: /mcp takes lsk_ keys, not the hub key', async () => {
  const router = new FakeRouter({ models: ['gemma-4-12b'] });
  await router.start();
  const hubKey = 'hub-test-key-0123456789';
  const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_API_KEYS: sha256(hubKey), KNOWLEDGE_DB_PATH: ':memory:', KNOWLEDGE_CONTENT: FIXTURES, KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.open) });
  try {
    const c = await connect(`Bearer ${KEYS.open}`, hub.url);
    expect((await c.listTools()).tools.map((t) => t.name).sort()).toEqual(['answer', 'context', 'search']);
    const r = await call(c, 'context', allergic);
    expect((r.structuredContent as unknown as ContextResponse).safety_items.length).toBeGreaterThan(0);
    await expect(connect(`Bearer ${hubKey}`, hub.url)).rejects.toMatchObject({ code: 401 });
    const doc = (await (await fetch(`${hub.url}/openapi.json`, { headers: { authorization: `Bearer ${hubKey}` } })).json()) as any;
    expect(doc.paths['/mcp'].post.summary).toMatch(/^MCP over Streamable HTTP/);
  } finally {
    await hub.close();
    await router.stop();
  }
});
