/**
 * The embedded llama.cpp engine end to end with a real engine (node-llama-cpp, the tiny random-weight
 * GGUF): its answers are noise, so only plumbing is asserted — discovery, legs and product turns blocking
 * and streamed, grammar-valid JSON, exact counts equal to what the engine evaluated, cancellation.
 */
import fs from 'node:fs';
import { removeHubJs } from '../../bench/support/spawn-hub';
import { embeddedEngineUnavailable, startEmbeddedHub, tinyCatalogueDir, type EmbeddedHub } from '../support/embedded-hub';
import { postJson, SMALL_CHART } from '../support/hub';
import { lcg, randomChart } from '../support/random-chart';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { REGISTER_TS, ROOT } from '../../bench/support/child';

/** Runs a scenario of test/support/embedded-probe.ts in its own Node process; returns its JSON output. */
async function probe(modelsDir: string, scenario: string): Promise<unknown> {
  // Asynchronous: a blocked test process would miss the hub closing idle keep-alive sockets.
  const { stdout } = await promisify(execFile)(process.execPath, ['-r', REGISTER_TS, path.join(ROOT, 'test/support/embedded-probe.ts'), modelsDir, scenario], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** A backstop only (every wait below is bounded by counts and states): real inference on a busy 2-core machine. */
jest.setTimeout(180_000);

const unavailable = embeddedEngineUnavailable();
if (unavailable) console.warn(`embedded-engine tests skipped: ${unavailable}`);
const suite = unavailable ? describe.skip : describe;

const LEG = 'answer:gemma-4-12b@synthesis-chartsearchai~off~temp0';
const messages = [
  { role: 'user', content: SMALL_CHART },
  { role: 'user', content: 'How has the weight changed?' },
];

function sseFrames(text: string): Array<{ event: string | null; data: string }> {
  return text.split('\n\n').filter((f) => f.trim() !== '' && !f.startsWith(':')).map((frame) => {
    const lines = frame.split('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null;
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    return { event, data };
  });
}

async function rootBackend(url: string): Promise<{ models: Array<{ id: string; status: string; busy_sequences?: number; generated_tokens?: number }> }> {
  return ((await (await fetch(`${url}/`)).json()) as { backend: any }).backend;
}

suite('embedded llama.cpp engine (tiny real GGUF)', () => {
  let ctx: EmbeddedHub;
  let dir: string;

  beforeAll(async () => {
    dir = tinyCatalogueDir();
    ctx = await startEmbeddedHub(dir);
  });
  afterAll(async () => {
    await ctx?.stop();
    removeHubJs();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts without loading anything and reports every model and profile truthfully', async () => {
    const root = (await (await fetch(`${ctx.hub.url}/`)).json()) as any;
    expect(root.model_backend).toBe('embedded');
    expect(root.backend.models.map((m: { status: string }) => m.status)).toEqual(['unloaded', 'unloaded', 'unloaded', 'unloaded']);
    const health = (await (await fetch(`${ctx.hub.url}/health`)).json()) as any;
    expect(health).toMatchObject({ status: 'healthy', model_backend: { type: 'embedded', ready: true } });
    const models = (await (await fetch(`${ctx.hub.url}/v1/models`)).json()) as any;
    const bare = models.data.find((p: { id: string }) => p.id === 'single-12b-bare');
    expect(bare).toMatchObject({ available: true, unavailable_reasons: [] });
    expect(models.backend).toMatchObject({ catalog_reachable: true });
    expect(models.backend.advertised_model_ids).toEqual(expect.arrayContaining(['gemma-4-12b', 'qwen2.5-14b']));
  });

  it('answers a blocking leg with the engine\'s own usage', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: LEG, messages, max_tokens: 12 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(typeof body.choices[0].message.content).toBe('string');
    expect(body.usage.prompt_tokens).toBeGreaterThan(50);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(12);
    const backend = await rootBackend(ctx.hub.url);
    expect(backend.models.find((m) => m.id === 'gemma-4-12b')).toMatchObject({ status: 'loaded', busy_sequences: 0 });
  });

  it('streams a leg as OpenAI chunks ending in [DONE]', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: LEG, messages, max_tokens: 12, stream: true });
    expect(res.status).toBe(200);
    const frames = sseFrames(await res.text());
    expect(frames.at(-1)?.data).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.data));
    expect(chunks.some((c) => typeof c.choices?.[0]?.delta?.content === 'string' && c.choices[0].delta.content !== '')).toBe(true);
  });

  it('enforces a response_format JSON schema by grammar (the engine behind the router-client interface)', async () => {
    const { replies } = (await probe(dir, 'grammar')) as { replies: Array<{ content: string; finishReason: string }> };
    expect(replies).toHaveLength(6);
    for (const reply of replies) {
      expect(reply.finishReason).toBe('stop');
      const parsed = JSON.parse(reply.content);
      expect(Object.keys(parsed).sort()).toEqual(['flagged', 'index', 'verdict']);
      expect(['found', 'differs', 'not_found']).toContain(parsed.verdict);
      expect(typeof parsed.flagged).toBe('boolean');
      expect([1, 2, 3]).toContain(parsed.index);
    }
  });

  it('answers /tokenize with pieces that are exactly the content\'s bytes', async () => {
    const { results, hello } = (await probe(dir, 'pieces')) as { results: Array<{ count: number; pieces: number | null; exact: boolean; empty: number }>; hello: number[] };
    expect(hello).toEqual([15043, 3186, 29892, 445, 338, 263, 1243, 29889]);
    expect(results.length).toBe(24);
    for (const r of results) {
      expect(r.pieces).toBe(r.count);
      expect(r.exact).toBe(true);
    }
    // The fit proof's premise (decision 24): this tokenizer spends at least one byte per token.
    expect(results[0].empty).toBe(0);
  });

  it('streams single-12b-bare end to end and marks the noise Answer honestly', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages, max_tokens: 48, stream: true });
    expect(res.status).toBe(200);
    const frames = sseFrames(await res.text());
    const events = frames.map((f) => f.event);
    expect(events[0]).toBe('answer_done');
    expect(events.at(-1)).toBe('done');
    const answer = JSON.parse(frames[0].data);
    expect(answer.answerValidation.status).not.toBe('checked');
    expect(['needs_review', 'unavailable']).toContain(answer.answerValidation.status);
    const done = JSON.parse(frames.at(-1)!.data);
    expect(done.answer).toBe(answer.answer);
  });

  it('drains single-12b-bare blocking into one envelope', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages, max_tokens: 48 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const envelope = JSON.parse(body.choices[0].message.content);
    expect(envelope.answerValidation.status).not.toBe('checked');
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('budgets with exactly the tokens the engine evaluates (50 random charts and questions)', async () => {
    const rand = lcg(1307);
    const questions = ['What is the latest weight?', 'Any allergies?', 'Summarise the visits since January.', 'Quelle est la dernière tension ?', 'Trend of HbA1c over time'];
    const answerOnly = () => ctx.traceLines().filter((l) => l.profile_id === 'eval-12b-answer-only');
    for (let i = 0; i < 50; i++) {
      const chart = `Patient records (most recent first):\n${randomChart(rand, 2 + Math.floor(rand() * 10))}`;
      const question = questions[Math.floor(rand() * questions.length)];
      const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, {
        model: 'eval-12b-answer-only', messages: [{ role: 'user', content: chart }, { role: 'user', content: question }], max_tokens: 4,
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`turn ${i}: HTTP ${res.status}: ${text.slice(0, 300)}`);
    }
    await waitFor(async () => answerOnly().length >= 50);
    const lines = answerOnly();
    expect(lines).toHaveLength(50);
    let compared = 0;
    for (const line of lines) {
      const budgeted = (line.exact_request_budgets.measurements as Array<{ stage: string; input_tokens: number | null }>).filter((m) => m.input_tokens !== null);
      const evaluated = line.prompt_evaluation.stages as Array<{ stage: string; prompt_tokens: number }>;
      expect(evaluated.length).toBeGreaterThan(0);
      expect(evaluated.map((s) => s.prompt_tokens)).toEqual(budgeted.slice(0, evaluated.length).map((m) => m.input_tokens));
      compared += evaluated.length;
    }
    expect(compared).toBeGreaterThanOrEqual(50);
  });

  it('frees the sequence of each of 20 streams aborted mid-generation; the next request starts at once', async () => {
    const generated = async () => (await rootBackend(ctx.hub.url)).models.find((m) => m.id === 'gemma-4-12b')?.generated_tokens ?? 0;
    const busy = async () => (await rootBackend(ctx.hub.url)).models.find((m) => m.id === 'gemma-4-12b')?.busy_sequences ?? 0;
    const before = await generated();
    for (let i = 0; i < 20; i++) {
      const abort = new AbortController();
      const started = await generated();
      const res = postJson(`${ctx.hub.url}/v1/chat/completions`, { model: LEG, messages, max_tokens: 3000, stream: true }, { signal: abort.signal }).catch(() => null);
      // Mid-generation: the engine holds the sequence and has sampled tokens of this stream.
      await waitFor(async () => (await busy()) === 1 && (await generated()) > started);
      abort.abort();
      await res;
      await waitFor(async () => (await busy()) === 0);
    }
    await waitFor(async () => (await ctx.hub.counters()).routerInFlight === 0 && (await ctx.hub.counters()).activeTurns === 0);
    expect(await ctx.hub.counters()).toMatchObject({ routerInFlight: 0, routerQueued: 0 });
    // Each stopped far short of its 3,000 tokens: cancellation stops generation, it does not run it out.
    expect((await generated()) - before).toBeLessThan(20 * 600);
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: LEG, messages, max_tokens: 4 });
    expect(res.status).toBe(200);
    expect((await res.json() as { usage: { completion_tokens: number } }).usage.completion_tokens).toBeGreaterThan(0);
  });
});

/** Polls a state until it holds (bounded by count, not time: 500 rounds of 20 ms at most). */
async function waitFor(holds: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await holds()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the state never held');
}
