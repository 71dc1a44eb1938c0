/**
 * Replicas (LLM_BACKENDS, issue #32): two fake llama.cpp routers serve the same model behind one hub, and one
 * of them is killed in the middle of a run, with requests generating on it, sent to it and not yet answered,
 * waiting in its slot queue, and on the other replica. Every request that had not reached the killed replica's
 * model completes on the other one; the ones that were mid-generation there fail honestly (their stream ends
 * without [DONE]); nothing is lost and nothing is answered twice. Bounded by counts and states only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeRouter } from '../support/fake-router';
import { postJson, startTestHub } from '../support/hub';
import type { RunningHub } from '../../server/main';

const MODEL = 'gemma-4-12b';
const FROM_B = 'served by the replica that stayed';

interface Outcome {
  /** What the client read: a blocking body's content, or a stream's joined deltas. */
  content: string;
  status: number;
  /** A stream ended with [DONE] (a blocking call: its 200). */
  complete: boolean;
  /** Content deltas the client had received (streams). */
  deltas: number;
}

/** One raw generate through the hub; a stream is read as it comes, so the test can see its first tokens. */
function generate(hub: RunningHub, i: number, stream: boolean, seen: Map<number, Outcome>): Promise<Outcome> {
  const out: Outcome = { content: '', status: 0, complete: false, deltas: 0 };
  seen.set(i, out);
  return (async () => {
    const res = await postJson(`${hub.url}/v1/hub/generate`, { model: MODEL, messages: [{ role: 'user', content: `request ${i}` }], stream, max_tokens: 64 });
    out.status = res.status;
    if (!stream) {
      const body = (await res.json()) as { content?: string };
      out.content = body.content ?? '';
      out.complete = res.status === 200;
      return out;
    }
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffered.indexOf('\n\n')) >= 0) {
          const frame = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          const data = frame.replace(/^data: /, '');
          if (data === '[DONE]') out.complete = true;
          else {
            const delta = JSON.parse(data).choices?.[0]?.delta?.content;
            if (typeof delta === 'string' && delta !== '') {
              out.content += delta;
              out.deltas++;
            }
          }
        }
      }
    } catch {
      // A stream the hub ended abruptly: what was read stands, without [DONE].
    }
    return out;
  })();
}

async function until(cond: () => boolean, what: string, attempts = 1000): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`not reached: ${what}`);
}

describe('replicas of one model: one killed mid-run', () => {
  const a = new FakeRouter({ models: [MODEL] });
  const b = new FakeRouter({ models: [MODEL] });
  let dir: string;
  let hub: RunningHub;

  beforeAll(async () => {
    await a.start();
    await b.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-replicas-'));
    const file = path.join(dir, 'backends.json');
    fs.writeFileSync(file, JSON.stringify({ models: { [MODEL]: [{ base_url: a.baseUrl, name: 'a', max_concurrency: 3 }, { base_url: b.baseUrl, name: 'b', max_concurrency: 2 }] } }));
    hub = await startTestHub({ LLM_BACKENDS: file, ROUTER_MAX_QUEUE: '32' });
  });
  afterAll(async () => {
    await hub?.close();
    await a.stop();
    await b.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('everything that had not reached the killed replica\'s model completes on the other; the two mid-generation fail honestly', async () => {
    let openA!: () => void;
    const gateA = new Promise<void>((r) => (openA = r));
    let openB!: () => void;
    const gateB = new Promise<void>((r) => (openB = r));
    // On a: the first two requests it receives stream their first tokens and stop mid-generation; the third
    // is held before any response headers (sent, not answered). On b: every request waits until released.
    a.script(
      { pauseAfter: { chunks: 1, until: gateA }, content: 'one two three four five six', times: 2 },
      { hold: gateA, content: 'never sent', times: 1 },
    );
    b.script({ hold: gateB, content: FROM_B });

    // Sent one at a time, each waiting until the hub holds it (in a slot or a queue): the least busy choice then
    // places them the same way every run — 3 in a's slots, 2 in b's, the rest queued on both.
    const seen = new Map<number, Outcome>();
    const done: Array<Promise<Outcome>> = [];
    const N = 12;
    const streams = new Set([0, 2, 4, 6, 7, 9, 11]);
    for (let i = 0; i < N; i++) {
      done.push(generate(hub, i, streams.has(i), seen));
      await until(() => hub.routerSlots().inFlight + hub.routerSlots().queued === i + 1, `request ${i} held by the hub`);
    }
    await until(() => a.openChats === 3 && b.openChats === 2, 'three requests open on a, two on b');
    expect(hub.routerSlots().queued).toBe(N - 5);
    // Each replica's own slots and queue (its limit is its own): requests wait for a as well as for b.
    const before = (await (await fetch(`${hub.url}/`)).json()) as any;
    const [onA, onB] = before.backend.backends;
    expect([onA.name, onA.in_flight, onA.capacity, onB.name, onB.in_flight, onB.capacity]).toEqual(['a', 3, 3, 'b', 2, 2]);
    expect(onA.queued).toBeGreaterThan(0);
    expect(onB.queued).toBeGreaterThan(0);
    expect(onA.queued + onB.queued).toBe(N - 5);
    // The two mid-generation streams have delivered their first tokens to their clients.
    await until(() => [...seen.values()].filter((o) => o.deltas > 0).length === 2, 'first tokens of the two generating streams');
    const generating = [...seen.entries()].filter(([, o]) => o.deltas > 0).map(([i]) => i);

    await a.stop(); // killed: its listener closed and every connection destroyed
    openB();
    const outcomes = await Promise.all(done);

    // Mid-generation on a: failed honestly (the tokens already sent stand; no [DONE]); never sent again.
    const failed = outcomes.map((o, i) => [i, o] as const).filter(([, o]) => !o.complete);
    expect(failed.map(([i]) => i).sort()).toEqual(generating.sort());
    for (const [, o] of failed) {
      expect(o.status).toBe(200);
      expect(o.content).toBe('one ');
    }
    // Everything else — held before headers on a, queued for a, on b — completed once, on b.
    const completed = outcomes.filter((o) => o.complete);
    expect(completed).toHaveLength(N - 2);
    for (const o of completed) expect(o.content).toBe(FROM_B);
    expect(a.chatRequests()).toHaveLength(3);
    expect(b.chatRequests()).toHaveLength(N - 2);
    expect(new Set(b.chatRequests().map((r) => r.body.messages[0].content)).size).toBe(N - 2);
    // No slot left taken in the hub; the killed replica is not healthy on `/`.
    expect(hub.routerSlots()).toMatchObject({ inFlight: 0, queued: 0 });
    const banner = (await (await fetch(`${hub.url}/`)).json()) as any;
    expect(banner.backend.backends.map((x: any) => [x.name, x.health === 'healthy'])).toEqual([['a', false], ['b', true]]);
    const metrics = await (await fetch(`${hub.url}/metrics`)).text();
    expect(metrics).toContain('hub_backend_healthy{backend="a"} 0');
    expect(metrics).toContain('hub_backend_healthy{backend="b"} 1');
    expect(metrics).toContain('hub_backend_in_flight{backend="b"} 0');
    openA();
  });
});
