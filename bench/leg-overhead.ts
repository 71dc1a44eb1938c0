/**
 * Gateway overhead of a low-level Answer leg: the same chat request sent straight to the fake
 * router (its own process) and through the hub (this process), sequentially (concurrency 1), in one run.
 * Prints p50/p99 of both and the hub's added latency; writes bench/results/leg-overhead.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { loadConfig } from '../server/config';
import { startHub } from '../server/main';
import { FakeRouter } from '../test/support/fake-router';
import { spawnFakeRouter } from './support/spawn-router';

const ROOT = path.resolve(__dirname, '..');
const CHART = ['Patient records (most recent first):', ...Array.from({ length: 40 }, (_, i) => `[${i + 1}] (2026-0${1 + (i % 9)}-1${i % 10}) Finding — Weight (kg): ${60 + i} kg`)].join('\n');
const ANSWER = JSON.stringify({ answer: 'Weight is 60 kg [1].', citations: [1], blocks: [] });

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Hub self time per request (Server-Timing `hub;dur`), collected by timeRequests when present. */
const hubSelfMs: number[] = [];

async function timeRequests(pool: Pool, pathName: string, body: unknown, n: number): Promise<number[]> {
  const out: number[] = [];
  const payload = JSON.stringify(body);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await pool.request({ method: 'POST', path: pathName, headers: { 'content-type': 'application/json' }, body: payload });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    const timing = /hub;dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''));
    if (timing) hubSelfMs.push(Number(timing[1]));
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

/** The chat request the hub sends the router for `hubBody`, captured once from an in-process fake router. */
async function capturedRouterRequest(hubBody: unknown): Promise<Record<string, unknown>> {
  const recorder = new FakeRouter({ models: ['gemma-4-12b'], defaultReply: { content: ANSWER } });
  await recorder.start();
  const hub = await startHub(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', LLM_BASE_URL: recorder.baseUrl }, ROOT));
  try {
    const pool = new Pool(hub.url, { connections: 1 });
    await timeRequests(pool, '/v1/chat/completions', hubBody, 1);
    await pool.close();
    return recorder.chatRequests()[0].body as Record<string, unknown>;
  } finally {
    await hub.close();
    await recorder.stop();
  }
}

export async function benchLegOverhead(n = 400): Promise<Record<string, number>> {
  // The router runs in its own process, so its work is not billed to the hub's event loop.
  const router = await spawnFakeRouter({ models: ['gemma-4-12b'], defaultReply: { content: ANSWER } });
  const hub = await startHub(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', LLM_BASE_URL: router.baseUrl }, ROOT));
  const direct = new Pool(router.baseUrl, { connections: 1 });
  const viaHub = new Pool(hub.url, { connections: 1 });
  const messages = [{ role: 'user', content: CHART }, { role: 'user', content: 'What is the latest weight?' }];
  try {
    const hubBody = { model: 'answer:gemma-4-12b@synthesis-chartsearchai~off~temp0', messages };
    // The baseline sends the router exactly what the hub sends it (temporal facts, prompt, sampling),
    // so both sides cost the router the same and the difference is the hub's own work.
    const routerBody = await capturedRouterRequest(hubBody);
    await timeRequests(direct, '/v1/chat/completions', routerBody, 50); // warm-up
    await timeRequests(viaHub, '/v1/chat/completions', hubBody, 50);
    const d = await timeRequests(direct, '/v1/chat/completions', routerBody, n);
    hubSelfMs.length = 0;
    const h = await timeRequests(viaHub, '/v1/chat/completions', hubBody, n);
    const self = [...hubSelfMs].sort((a, b) => a - b);
    const result = {
      requests: n,
      direct_p50_ms: pct(d, 50),
      direct_p99_ms: pct(d, 99),
      hub_p50_ms: pct(h, 50),
      hub_p99_ms: pct(h, 99),
      added_p50_ms: pct(h, 50) - pct(d, 50),
      added_p99_ms: pct(h, 99) - pct(d, 99),
      ratio_p50: pct(h, 50) / pct(d, 50),
      hub_handler_p50_ms: pct(self, 50),
      hub_handler_p99_ms: pct(self, 99),
    };
    return result;
  } finally {
    await direct.close();
    await viaHub.close();
    await hub.close();
    await router.stop();
  }
}

if (require.main === module) {
  benchLegOverhead().then((r) => {
    const fmt = (x: number) => x.toFixed(3);
    process.stdout.write(
      `leg overhead (blocking, concurrency 1, ${r.requests} requests)\n` +
        `  direct router  p50 ${fmt(r.direct_p50_ms)} ms  p99 ${fmt(r.direct_p99_ms)} ms\n` +
        `  through hub    p50 ${fmt(r.hub_p50_ms)} ms  p99 ${fmt(r.hub_p99_ms)} ms\n` +
        `  added          p50 ${fmt(r.added_p50_ms)} ms  p99 ${fmt(r.added_p99_ms)} ms  (ratio hub/direct p50 ${r.ratio_p50.toFixed(2)}x)\n` +
        `  hub handler (Server-Timing, excludes router calls)  p50 ${fmt(r.hub_handler_p50_ms)} ms  p99 ${fmt(r.hub_handler_p99_ms)} ms\n`,
    );
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'bench/results/leg-overhead.json'), JSON.stringify({ at: new Date().toISOString(), ...r }, null, 2));
  });
}
