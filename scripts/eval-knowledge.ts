/**
 * `npm run eval:knowledge [-- gold.json [content…]]`: loads the content into fresh in-memory SQLite and PGlite
 * stores and prints recall@k, safety recall and citation precision on the gold set for each. Without
 * arguments it runs both bundled sets: the synthetic French fixtures and the English gold set over the demo
 * knowledge base (data/knowledge/demo). Exits 1 when safety recall is below 100 % on any of them.
 */
import path from 'node:path';
import { createEmbedder } from '../server/knowledge/embedder';
import { evaluateGold, formatEvalReport, readGold } from '../server/knowledge/eval';
import { loadContent } from '../server/knowledge/loader';
import { createKnowledgeStore } from '../server/knowledge/store';
import type { KnowledgeStore } from '../server/knowledge/store/port';
import { openPgliteStore } from '../test/support/knowledge-stores';

const ROOT = path.resolve(__dirname, '..');

async function main(): Promise<void> {
  const [goldArg, ...contentArgs] = process.argv.slice(2);
  const sets: Array<{ name: string; gold: string; content: string[] }> = goldArg
    ? [{ name: path.basename(goldArg), gold: goldArg, content: contentArgs.length ? contentArgs : [path.join(ROOT, 'test/fixtures/knowledge')] }]
    : [
      { name: 'French synthetic fixtures', gold: path.join(ROOT, 'test/fixtures/knowledge/gold.json'), content: [path.join(ROOT, 'test/fixtures/knowledge')] },
      { name: 'English demo KB', gold: path.join(ROOT, 'test/fixtures/knowledge-demo/gold.json'), content: [path.join(ROOT, 'data/knowledge/demo')] },
    ];
  let failed = false;
  for (const set of sets) failed = (await evalSet(set.name, readGold(set.gold), set.content)) || failed;
  process.exit(failed ? 1 : 0);
}

/** One gold set on both engines; true when its safety recall is below 100 %. */
async function evalSet(name: string, gold: ReturnType<typeof readGold>, content: string[]): Promise<boolean> {
  const embedder = createEmbedder();
  let failed = false;
  const engines: Array<[string, () => Promise<KnowledgeStore>]> = [
    ['sqlite', () => createKnowledgeStore({ engine: 'sqlite', dbPath: ':memory:' })],
    ['postgres (PGlite)', openPgliteStore],
  ];
  for (const [label, open] of engines) {
    const store = await open();
    try {
      await loadContent(store, embedder, content);
      const report = await evaluateGold({ store, embedder, policy: { allowUnreviewed: false, model: null } }, gold);
      process.stdout.write(`${formatEvalReport(report, `${name}, ${label}, embedder ${embedder.id}`)}\n`);
      failed ||= report.safetyRecall < 1;
    } finally {
      await store.close();
    }
  }
  return failed;
}

main().catch((err: unknown) => {
  process.stderr.write(`eval failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
