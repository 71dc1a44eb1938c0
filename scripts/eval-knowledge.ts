/**
 * `npm run eval:knowledge [-- gold.json [content…]]`: loads the content (default: the synthetic fixtures) into
 * fresh in-memory SQLite and PGlite stores and prints recall@k, safety recall and citation precision on the
 * gold set for each. Exits 1 when safety recall is below 100 %.
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
  const gold = readGold(goldArg ?? path.join(ROOT, 'test/fixtures/knowledge/gold.json'));
  const content = contentArgs.length ? contentArgs : [path.join(ROOT, 'test/fixtures/knowledge')];
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
      process.stdout.write(`${formatEvalReport(report, `${label}, embedder ${embedder.id}`)}\n`);
      failed ||= report.safetyRecall < 1;
    } finally {
      await store.close();
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err: unknown) => {
  process.stderr.write(`eval failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
