/**
 * LLM_BACKENDS through HTTP (issue #32): two fake llama.cpp routers serving different models behind one hub.
 * A checked turn whose writer and reviewer live on different backends completes, each backend seeing only its
 * own model's calls (chats and token counts alike, each with its own key); discovery merges both inventories
 * and names the backend of each model; a backend that goes down makes only its own models unavailable.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { assertShape } from '../support/catalyst-contract';
import { isCall, scriptChecked } from '../support/checkers';
import { FakeRouter } from '../support/fake-router';
import { postJson, SMALL_CHART, startTestHub } from '../support/hub';
import type { RunningHub } from '../../server/main';

const KEY_A = 'sk-gpu-a-7f3e';
const KEY_B = 'sk-gpu-b-91c0';
const ANSWER = 'The latest weight is 71 kg [2]. A penicillin allergy with rash is documented [5].';
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'What is the latest weight and is there an allergy?' }];

/** Writes the map: the Gemma writers on gpu-a, the Qwen checkers on gpu-b, each router with its own key. */
function writeMap(dir: string, a: string, b: string): string {
  const file = path.join(dir, 'backends.yaml');
  fs.writeFileSync(
    file,
    [
      'models:',
      `  gemma-4-12b: { base_url: "${a}", api_key_env: GPU_A_KEY, name: gpu-a }`,
      `  gemma-e4b: { base_url: "${a}" }`,
      `  qwen3.5-9b: { base_url: "${b}", api_key_env: GPU_B_KEY, name: gpu-b }`,
      `  qwen2.5-14b: { base_url: "${b}" }`,
    ].join('\n'),
  );
  return file;
}

/** Every model a router's requests named (chats, token counts, templates). */
function modelsNamed(router: FakeRouter): string[] {
  return [...new Set(router.requests.filter((r) => r.method === 'POST').map((r) => r.body?.model as string))].sort();
}

describe('a checked turn whose writer and reviewer live on different backends', () => {
  const a = new FakeRouter({ models: ['gemma-4-12b', 'gemma-e4b'], apiKey: KEY_A });
  const b = new FakeRouter({ models: ['qwen3.5-9b', 'qwen2.5-14b'], apiKey: KEY_B });
  let dir: string;
  let hub: RunningHub;

  beforeAll(async () => {
    await a.start();
    await b.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-backends-it-'));
    hub = await startTestHub({ LLM_BACKENDS: writeMap(dir, a.baseUrl, b.baseUrl), GPU_A_KEY: KEY_A, GPU_B_KEY: KEY_B, HUB_ANCHOR: '2026-03-10' });
  });
  afterAll(async () => {
    await hub?.close();
    await a.stop();
    await b.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    a.reset();
    b.reset();
  });

  test('single-12b-verify streams to done: the Gemma writer\'s calls on gpu-a, the Qwen reviewer\'s and checker\'s on gpu-b', async () => {
    // Each router is scripted for every kind of call; it answers only those its model receives.
    for (const router of [a, b]) scriptChecked(router, { answer: ANSWER, citations: [2, 5], claims: ['An earlier weight of 74 kg was recorded [3].'] });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-verify', messages, stream: true });
    expect(res.status).toBe(200);
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'done']);
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    expect(done.answer).toBe(ANSWER);
    expect(done.answerValidation.status).toBe('checked');
    expect(done.inDepth.validation.review_status).toBeDefined();

    const onA = a.chatRequests();
    const onB = b.chatRequests();
    // The writer's Answer and In-Depth on gpu-a; the review and the fact checks on gpu-b; nothing crossed.
    expect(onA.filter((r) => isCall(r, 'inDepth')).length).toBe(1);
    expect(onA.filter((r) => isCall(r, 'answerReview') || isCall(r, 'grounding'))).toEqual([]);
    expect(onB.filter((r) => isCall(r, 'answerReview')).length).toBe(1);
    expect(onB.filter((r) => isCall(r, 'grounding')).length).toBeGreaterThanOrEqual(1);
    expect(onB.filter((r) => isCall(r, 'inDepth') && !isCall(r, 'inDepthReview'))).toEqual([]);
    // Token counts and templates go to the backend of the model they count for.
    expect(modelsNamed(a)).toEqual(['gemma-4-12b']);
    expect(modelsNamed(b)).toEqual(['qwen3.5-9b']);
    // Each with its own key (the fake routers answer 401 to any other).
    expect(new Set(a.requests.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${KEY_A}`]));
    expect(new Set(b.requests.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${KEY_B}`]));
  });

  test('a Catalyst profile with its writer on gpu-a and reviewer on gpu-b: discovery and both role calls', async () => {
    const disc = await fetch(`${hub.url}/v1/hub/query-profiles`);
    const doc = (await disc.json()) as any;
    assertShape('discovery', doc);
    expect(doc.data.find((p: any) => p.id === 'catalyst-query-e4b-qwen14b').available).toBe(true);
    expect(doc.backend.served_by).toEqual({ 'gemma-4-12b': ['gpu-a'], 'gemma-e4b': ['gpu-a'], 'qwen3.5-9b': ['gpu-b'], 'qwen2.5-14b': ['gpu-b'] });
    a.script({ content: '{"sql":"select 1"}' });
    b.script({ content: '{"verdict":"ok"}' });
    const role = (r: string) => postJson(`${hub.url}/v1/hub/query-profiles/catalyst-query-e4b-qwen14b/roles/${r}/generate`, { messages: [{ role: 'user', content: '{"question":"q"}' }] });
    const [gen, review] = await Promise.all([role('query_generate'), role('query_review')]);
    expect([gen.status, review.status]).toEqual([200, 200]);
    expect(((await gen.json()) as any).content).toBe('{"sql":"select 1"}');
    expect(((await review.json()) as any).content).toBe('{"verdict":"ok"}');
    expect(a.chatRequests().map((r) => r.body.model)).toEqual(['gemma-e4b']);
    expect(b.chatRequests().map((r) => r.body.model)).toEqual(['qwen2.5-14b']);
  });
});

describe('discovery over the map: merged inventories, the backend of each model, one backend down', () => {
  const a = new FakeRouter({ models: ['gemma-4-12b', 'gemma-e4b', 'not-in-the-map'], apiKey: KEY_A });
  const b = new FakeRouter({ models: ['qwen3.5-9b', 'qwen2.5-14b'], apiKey: KEY_B });
  let dir: string;
  let hub: RunningHub;

  beforeAll(async () => {
    await a.start();
    await b.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-backends-it-'));
    hub = await startTestHub({ LLM_BACKENDS: writeMap(dir, a.baseUrl, b.baseUrl), GPU_A_KEY: KEY_A, GPU_B_KEY: KEY_B });
  });
  afterAll(async () => {
    await hub?.close();
    await a.stop();
    await b.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const profile = (doc: any, id: string) => doc.data.find((p: any) => p.id === id);

  test('both up: every mapped model advertised with the backend that serves it; a model the map does not name is not', async () => {
    const doc = (await (await fetch(`${hub.url}/v1/models`)).json()) as any;
    expect(doc.backend).toEqual({
      contract_version: 'med-agent-hub.backend-model-inventory.v1',
      catalog_reachable: true,
      advertised_model_ids: ['gemma-4-12b', 'gemma-e4b', 'qwen3.5-9b', 'qwen2.5-14b'],
      served_by: { 'gemma-4-12b': ['gpu-a'], 'gemma-e4b': ['gpu-a'], 'qwen3.5-9b': ['gpu-b'], 'qwen2.5-14b': ['gpu-b'] },
      backends: [
        { name: 'gpu-a', type: 'router', url: `${a.baseUrl}/`, reachable: true },
        { name: 'gpu-b', type: 'router', url: `${b.baseUrl}/`, reachable: true },
      ],
    });
    expect(profile(doc, 'single-12b-checked').available).toBe(true);
    expect(profile(doc, 'single-12b-verify').available).toBe(true);
    // With no LLM_BASE_URL, a model the map does not name is never forwarded (raw generate checks the inventory).
    const raw = await postJson(`${hub.url}/v1/hub/generate`, { model: 'not-in-the-map', messages: [{ role: 'user', content: 'x' }] });
    expect(raw.status).toBe(404);
    expect(((await raw.json()) as any).detail.code).toBe('model_not_found');
    expect(a.chatRequests()).toHaveLength(0);
    // No key anywhere a client can read.
    const banner = await (await fetch(`${hub.url}/`)).text();
    for (const text of [JSON.stringify(doc), banner]) {
      expect(text).not.toContain(KEY_A);
      expect(text).not.toContain(KEY_B);
    }
  });

  test('gpu-b down: only its models go unavailable, each saying which backend failed; gpu-a serves on; `/` shows gpu-b unhealthy', async () => {
    await b.stop();
    const doc = (await (await fetch(`${hub.url}/v1/models`)).json()) as any;
    expect(doc.backend.catalog_reachable).toBe(true);
    expect(doc.backend.advertised_model_ids).toEqual(['gemma-4-12b', 'gemma-e4b']);
    expect(doc.backend.backends.map((x: any) => [x.name, x.reachable])).toEqual([['gpu-a', true], ['gpu-b', false]]);
    expect(doc.backend.notes).toEqual([expect.stringContaining("backend 'gpu-b'")]);
    expect(profile(doc, 'single-12b-checked')).toMatchObject({ available: true, unavailable_reasons: [] });
    const verify = profile(doc, 'single-12b-verify');
    expect(verify.available).toBe(false);
    expect(verify.unavailable_reasons).toEqual(['model_not_loaded:qwen3.5-9b']);
    expect(verify.unavailable_details[0]).toMatchObject({ model: 'qwen3.5-9b', advice: expect.stringContaining("backend 'gpu-b'") });
    const disc = (await (await fetch(`${hub.url}/v1/hub/query-profiles`)).json()) as any;
    assertShape('discovery', disc);
    expect(profile(disc, 'catalyst-query-e4b-qwen14b')).toMatchObject({ available: false, unavailable_reasons: ['model_not_loaded:qwen2.5-14b'] });
    const banner = (await (await fetch(`${hub.url}/`)).json()) as any;
    expect(banner.model_backend).toBe('backends');
    // Discovery marked it down (`unhealthy`, or `probing` once its period is over: never healthy until it answers).
    expect(banner.backend.backends.map((x: any) => [x.name, x.health === 'healthy', x.models])).toEqual([
      ['gpu-a', true, ['gemma-4-12b', 'gemma-e4b']],
      ['gpu-b', false, ['qwen3.5-9b', 'qwen2.5-14b']],
    ]);
    // A bare turn on gpu-a still answers.
    a.script({ content: JSON.stringify({ answer: 'Weight 71 kg [2].', citations: [2], blocks: [] }) });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    expect(res.status).toBe(200);
  });
});
