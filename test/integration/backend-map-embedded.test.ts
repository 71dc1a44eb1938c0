/**
 * LLM_BACKENDS with `embedded` as a backend (issue #32): one model id on the in-process engine (the tiny real
 * GGUF), another on a fake llama.cpp router. Discovery advertises exactly the mapped ids, each with its backend;
 * a raw streamed generate on the engine's model is re-framed into the router's chunk sequence; the router's
 * model goes to the router alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeHubJs } from '../../bench/support/spawn-hub';
import { embeddedEngineUnavailable, startEmbeddedHub, tinyCatalogueDir, type EmbeddedHub } from '../support/embedded-hub';
import { FakeRouter } from '../support/fake-router';
import { postJson } from '../support/hub';

/** A backstop only: real inference on a busy 2-core machine (every wait below is a request's own end). */
jest.setTimeout(180_000);

const unavailable = embeddedEngineUnavailable();
if (unavailable) console.warn(`backend-map embedded tests skipped: ${unavailable}`);
const suite = unavailable ? describe.skip : describe;

suite('a map with one model on the embedded engine and one on a router', () => {
  const router = new FakeRouter({ models: ['qwen3.5-9b'] });
  let models: string;
  let dir: string;
  let ctx: EmbeddedHub;

  beforeAll(async () => {
    await router.start();
    models = tinyCatalogueDir();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-backends-emb-'));
    const file = path.join(dir, 'backends.yaml');
    fs.writeFileSync(file, `models:\n  gemma-4-12b: embedded\n  qwen3.5-9b: { base_url: "${router.baseUrl}", name: gpu-b }\n`);
    // auto with no LLM_BASE_URL: models the file does not name are served by no one.
    ctx = await startEmbeddedHub(models, { LLM_BACKEND: 'auto', LLM_BACKENDS: file });
  });
  afterAll(async () => {
    await ctx?.stop();
    removeHubJs();
    await router.stop();
    fs.rmSync(models, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('discovery: only the mapped ids, each with its backend; `/` shows the engine among the backends', async () => {
    const doc = (await (await fetch(`${ctx.hub.url}/v1/models`)).json()) as any;
    expect(doc.backend.advertised_model_ids).toEqual(['gemma-4-12b', 'qwen3.5-9b']);
    expect(doc.backend.served_by).toEqual({ 'gemma-4-12b': ['embedded'], 'qwen3.5-9b': ['gpu-b'] });
    expect(doc.backend.backends).toEqual([
      { name: 'gpu-b', type: 'router', url: `${router.baseUrl}/`, reachable: true },
      { name: 'embedded', type: 'embedded', reachable: true },
    ]);
    expect(doc.data.find((p: any) => p.id === 'single-12b-verify').available).toBe(true);
    // The engine has a file for gemma-e4b too, but the map sends it nowhere.
    expect(doc.data.find((p: any) => p.id === 'catalyst-query-e4b-qwen14b').available).toBe(false);
    const banner = (await (await fetch(`${ctx.hub.url}/`)).json()) as any;
    const engine = banner.backend.backends.find((b: any) => b.name === 'embedded');
    expect(engine).toMatchObject({ type: 'embedded', models: ['gemma-4-12b'], engine: { type: 'embedded', ready: true } });
  });

  test('a raw streamed generate on the engine\'s model comes re-framed as the router\'s chunks; the router\'s model goes to the router', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/hub/generate`, { model: 'gemma-4-12b', messages: [{ role: 'user', content: 'Say hello.' }], stream: true, max_tokens: 4, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    const frames = (await res.text()).split('\n\n').filter(Boolean).map((f) => f.replace(/^data: /, ''));
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: null });
    expect(chunks.at(-1).usage.completion_tokens).toBeGreaterThan(0);
    expect(router.chatRequests()).toHaveLength(0);
    router.script({ content: 'from the router' });
    const viaRouter = await postJson(`${ctx.hub.url}/v1/hub/generate`, { model: 'qwen3.5-9b', messages: [{ role: 'user', content: 'x' }] });
    expect(((await viaRouter.json()) as any).content).toBe('from the router');
    expect(router.chatRequests().map((r) => r.body.model)).toEqual(['qwen3.5-9b']);
  });
});
