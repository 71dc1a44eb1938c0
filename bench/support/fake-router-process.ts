/**
 * Runs the test suite's fake llama.cpp router in its own process, so benchmarks time the hub and the
 * router on separate event loops (as in production). Prints `READY <baseUrl>` on stdout.
 * argv[2]: FakeRouterOptions (JSON); argv[3] (optional): BenchScript[] (JSON), installed with `script()`.
 * With an IPC channel it answers `{ type: 'usage' }` with its CPU time and RSS, and `{ type: 'lastChats', n }`
 * with the bodies of the last n chat requests it received, and `{ type: 'lastRequests', n }` with the path and
 * body of the last n requests of any kind (see spawn-router.ts), and `{ type: 'reset' }` by forgetting every request
 * it recorded and installing its scripts afresh (a long run's request log would otherwise keep every body).
 */
import { FakeRouter, type FakeRouterOptions, type ScriptedReply } from '../../test/support/fake-router';
import { factChecker, found } from '../../test/support/checkers';
import { buildCases } from '../../test/support/fuzz/hostile-bodies';
import { hostileReply } from '../../test/support/fuzz/model-output';
import { answerUsage } from './child';
import type { BenchScript } from './scripts';

function toScriptedReply(s: BenchScript): ScriptedReply {
  const { match, replyWith, hostile, ...rest } = s;
  const reply: ScriptedReply = { ...rest };
  if (match) {
    const { stream, ...plain } = match;
    reply.match = stream === undefined ? plain : { ...plain, test: (req) => (req.body?.stream === true) === stream };
  }
  // A checker that answers what it was asked: every PAIR of a fact-check request gets one `found` fact.
  if (replyWith === 'all_found') reply.reply = factChecker((p) => [found(p.statement)]);
  if (replyWith === 'hostile') {
    if (!hostile) throw new Error("replyWith 'hostile' needs hostile: { seed, scale }");
    reply.reply = hostileReply(buildCases(hostile).plans, hostile.seed).reply;
  }
  return reply;
}

async function main(): Promise<void> {
  const opts = JSON.parse(process.argv[2] ?? '{}') as FakeRouterOptions;
  const scripts = JSON.parse(process.argv[3] ?? '[]') as BenchScript[];
  const router = new FakeRouter(opts);
  const replies = scripts.map(toScriptedReply);
  router.script(...replies);
  const url = await router.start();
  process.stdout.write(`READY ${url}\n`);
  const stop = () => void router.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
  process.on('message', (msg: { type?: string; n?: number }) => {
    if (msg?.type === 'usage') process.send?.(answerUsage({ openChats: router.openChats, chatRequests: router.chatRequests().length, requests: router.requests.length }));
    if (msg?.type === 'lastRequests') process.send?.({ type: 'lastRequests', requests: router.requests.slice(-(msg.n ?? 1)).map((r) => ({ path: r.path, body: r.body })) });
    if (msg?.type === 'reset') {
      router.reset();
      router.script(...replies);
      process.send?.({ type: 'reset' });
    }
    if (msg?.type === 'lastChats') process.send?.({ type: 'lastChats', bodies: router.chatRequests().slice(-(msg.n ?? 1)).map((r) => r.body) });
  });
}

void main();
