/**
 * The embedded engine when nothing can be served: no model in MODELS_DIR, a corrupt GGUF, a context over
 * the model's limit. The hub starts anyway and every endpoint says what is wrong and what to do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeHubJs } from '../../bench/support/spawn-hub';
import { embeddedEngineUnavailable, modelsDir, startEmbeddedHub, TINY_MODEL, type EmbeddedHub } from '../support/embedded-hub';
import { postJson, SMALL_CHART } from '../support/hub';

const messages = [
  { role: 'user', content: SMALL_CHART },
  { role: 'user', content: 'How has the weight changed?' },
];

async function json(url: string): Promise<any> {
  return (await fetch(url)).json();
}

/** A backstop only: hubs start in their own processes and load a real engine. */
jest.setTimeout(120_000);

afterAll(() => removeHubJs());

describe('embedded engine with no model in MODELS_DIR', () => {
  let ctx: EmbeddedHub;
  let dir: string;
  beforeAll(async () => {
    dir = modelsDir({});
    ctx = await startEmbeddedHub(dir);
  });
  afterAll(async () => {
    await ctx?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts, and /, /health and /v1/models say what to put where', async () => {
    const root = await json(`${ctx.hub.url}/`);
    expect(root.backend).toMatchObject({ type: 'embedded', ready: false, models_dir: dir, models: [] });
    expect(root.backend.notes.join(' ')).toContain(`Put a GGUF model in ${dir} named <model id>.gguf`);
    const health = await json(`${ctx.hub.url}/health`);
    expect(health.status).toBe('healthy');
    expect(health.model_backend).toMatchObject({ type: 'embedded', ready: false });
    expect(health.model_backend.notes.join(' ')).toContain('models.yaml');
    const models = await json(`${ctx.hub.url}/v1/models`);
    expect(models.data.every((p: { available: boolean }) => !p.available)).toBe(true);
    expect(models.data.find((p: { id: string }) => p.id === 'single-12b-bare').unavailable_reasons).toEqual(['model_not_loaded:gemma-4-12b']);
    expect(models.backend.notes.join(' ')).toContain(dir);
  });

  it('names the exact file of every missing model, the same way on /v1/models and /', async () => {
    const models = await json(`${ctx.hub.url}/v1/models`);
    const root = await json(`${ctx.hub.url}/`);
    const byModel = new Map<string, any>(root.backend.missing_models.map((m: any) => [m.model, m]));
    for (const profile of models.data) {
      // One detail per reason, in order; each names the file it looked for.
      expect(profile.unavailable_details.map((d: any) => d.reason)).toEqual(profile.unavailable_reasons);
      for (const d of profile.unavailable_details) {
        const file = path.join(dir, `${d.model}.gguf`);
        expect(d).toEqual({ reason: `model_not_loaded:${d.model}`, model: d.model, expected_file: file, advice: expect.stringContaining(`Put its GGUF file at ${file}`) });
        // `/` lists the same model with the same words.
        expect(byModel.get(d.model)).toEqual({ model: d.model, expected_file: file, advice: d.advice });
      }
    }
    // Every model a profile names is listed on / once.
    expect([...byModel.keys()].sort()).toEqual([...new Set(models.data.flatMap((p: any) => p.required_models))].sort());
  });

  it('answers a model call with 503 model_unavailable and the advice', async () => {
    for (const model of ['single-12b-bare', 'answer:gemma-4-12b~off']) {
      const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model, messages });
      expect(res.status).toBe(503);
      const body = await res.json() as any;
      expect(body.detail).toMatchObject({ code: 'model_unavailable', model: 'gemma-4-12b', expected_file: path.join(dir, 'gemma-4-12b.gguf') });
      expect(body.error.message).toContain(`Put its GGUF file at ${path.join(dir, 'gemma-4-12b.gguf')}`);
    }
  });

  it('ends a product stream with event: error naming the model and the advice', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages, stream: true });
    const text = await res.text();
    const frames = text.split('\n\n').filter((f) => f.startsWith('event: '));
    expect(frames).toHaveLength(1);
    expect(frames[0].split('\n')[0]).toBe('event: error');
    const data = JSON.parse(frames[0].split('\n')[1].slice('data: '.length));
    expect(data).toMatchObject({ code: 'model_unavailable', source: 'embedded-llama', model: 'gemma-4-12b', expected_file: path.join(dir, 'gemma-4-12b.gguf') });
    expect(data.message).toContain(`Put its GGUF file at ${path.join(dir, 'gemma-4-12b.gguf')}`);
  });
});

describe('embedded engine with a MODELS_DIR that does not exist', () => {
  let ctx: EmbeddedHub;
  const missing = path.join(os.tmpdir(), `mah-no-such-models-${process.pid}`);
  beforeAll(async () => {
    ctx = await startEmbeddedHub(missing);
  });
  afterAll(async () => ctx?.stop());

  it('says so on /', async () => {
    const root = await json(`${ctx.hub.url}/`);
    expect(root.backend.ready).toBe(false);
    expect(root.backend.notes[0]).toBe(`MODELS_DIR ${missing} does not exist`);
  });
});

const unavailable = embeddedEngineUnavailable();
(unavailable ? describe.skip : describe)('embedded engine with models that cannot load', () => {
  let ctx: EmbeddedHub;
  let dir: string;
  beforeAll(async () => {
    dir = modelsDir({ 'qwen2.5-14b': { file: TINY_MODEL, context_size: 8192 } }, { 'gemma-4-12b.gguf': Buffer.from('GGUF this is not a model at all'.repeat(64)) });
    ctx = await startEmbeddedHub(dir);
  });
  afterAll(async () => {
    await ctx?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a corrupt GGUF is a 503 naming the file, then a failed model with the reason', async () => {
    const file = path.join(dir, 'gemma-4-12b.gguf');
    for (let i = 0; i < 2; i++) {
      const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~off', messages });
      expect(res.status).toBe(503);
      const body = await res.json() as any;
      expect(body.detail.code).toBe('model_unavailable');
      expect(body.error.message).toContain(file);
    }
    const root = await json(`${ctx.hub.url}/`);
    const entry = root.backend.models.find((m: { id: string }) => m.id === 'gemma-4-12b');
    expect(entry.status).toBe('failed');
    expect(entry.reason).toContain(file);
    const models = await json(`${ctx.hub.url}/v1/models`);
    const bare = models.data.find((p: { id: string }) => p.id === 'single-12b-bare');
    expect(bare.unavailable_reasons).toEqual(['model_failed:gemma-4-12b']);
    expect(bare.unavailable_details).toEqual([{ reason: 'model_failed:gemma-4-12b', model: 'gemma-4-12b', expected_file: file, advice: expect.stringContaining(`put a valid GGUF file at ${file}`) }]);
  });

  it('a context_size over the model\'s training context is a 503 naming the file and both sizes', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:qwen2.5-14b~off', messages });
    expect(res.status).toBe(503);
    const body = await res.json() as any;
    expect(body.detail.code).toBe('model_unavailable');
    expect(body.error.message).toContain(`context_size 8192 for 'qwen2.5-14b' exceeds the training context of ${TINY_MODEL} (4096 tokens)`);
    const health = await json(`${ctx.hub.url}/health`);
    expect(health.status).toBe('healthy');
  });
});
