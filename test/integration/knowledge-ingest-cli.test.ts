/**
 * `npm run ingest` end to end on a tiny label-shaped PDF (generated here), in a child process: writes into
 * the configured SQLite store (KNOWLEDGE_DB_PATH), a re-run changes nothing, `--dry-run` writes nothing,
 * `--out` writes the JSONL with page anchors, table text is never quoted, and every verbatim is found in
 * its page's text under the whitespace rule (all whitespace removed on both sides).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { containsQuote } from '../../server/knowledge/ingest/text';
import { openSqliteStore } from '../../server/knowledge/store/sqlite/sqlite-store';
import { INGEST_MAIN, pdfPageTexts, runTs } from '../support/ingest-child';
import { writeTinyLabelPdf } from '../support/tiny-pdf';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-cli-'));
const pdf = path.join(dir, 'tiny-label.pdf');
const db = path.join(dir, 'kb.db');
const env = { KNOWLEDGE_DB_PATH: db };
const jsonl = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('//')).map((l) => JSON.parse(l) as Record<string, unknown>);

async function storeCounts() {
  const store = openSqliteStore(db, { vectors: 'auto' });
  try {
    return await store.counts();
  } finally {
    await store.close();
  }
}

beforeAll(() => writeTinyLabelPdf(pdf));

test('ingest into the configured store, re-run (nothing changes), dry run (nothing written)', async () => {
  const first = await runTs(INGEST_MAIN, ['--reviewed', pdf], env);
  expect(first.stderr).toContain('ingest: read 1/1 tiny-label.pdf');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('1 documents, 3 sections, 3 chunks, 3 MKUs (2 safety-critical)');
  expect(first.stdout).toMatch(/store: [1-9]\d* rows changed/u);
  const counts = await storeCounts();
  expect(counts).toMatchObject({ documents: 1, sections: 3, chunks: 3, mkus: 3 });

  const again = await runTs(INGEST_MAIN, ['--reviewed', pdf], env);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('store: 0 rows changed (0 MKUs pruned) — already up to date');

  const out = path.join(dir, 'dry-out');
  const dry = await runTs(INGEST_MAIN, ['--dry-run', '--out', out, pdf], env);
  expect(dry.code).toBe(0);
  // Without --reviewed the units differ from the stored ones: the dry run sees 3 changed and writes nothing.
  expect(dry.stdout).toContain('MKUs       +0 ~3 -? (=0)');
  expect(fs.existsSync(out)).toBe(false);
  expect(await storeCounts()).toEqual(counts);
});

test('--no-store --out writes page-anchored JSONL; every verbatim is in its page text; tables are never quoted', async () => {
  const out = path.join(dir, 'out');
  const r = await runTs(INGEST_MAIN, ['--no-store', '--out', out, pdf], { KNOWLEDGE_DB_PATH: path.join(dir, 'unused.db') });
  expect(r.code).toBe(0);
  expect(fs.existsSync(path.join(dir, 'unused.db'))).toBe(false);
  const chunks = new Map(jsonl(path.join(out, 'chunks.jsonl')).map((c) => [c.chunk_id as string, c]));
  const mkus = jsonl(path.join(out, 'mkus.jsonl'));
  expect(mkus.map((m) => [m.verbatim, chunks.get(m.chunk_id as string)!.page, m.safety_critical]).sort()).toEqual([
    ['Avoid tinydrug during pregnancy because it can cause fetal harm.', '2', false],
    ['Closely monitor INR when starting or stopping any antibiotic in patients taking warfarin.', '2', true],
    ['Tinydrug is contraindicated in patients taking warfarin.', '1', true],
  ]);
  expect(jsonl(path.join(out, 'sections.jsonl')).map((s) => [s.id, s.titles, s.pages])).toEqual([
    ['tiny_label.s4', ['4 CONTRAINDICATIONS'], ['1']],
    ['tiny_label.s7.1', ['7 DRUG INTERACTIONS', '7.1 Antibiotics'], ['2']],
    ['tiny_label.s8.1', ['8 USE IN SPECIFIC POPULATIONS', '8.1 Pregnancy'], ['2']],
  ]);
  const pages = (await pdfPageTexts([pdf]))['tiny-label.pdf'];
  expect(pages).toHaveLength(2);
  for (const m of mkus) {
    const chunk = chunks.get(m.chunk_id as string)!;
    expect((chunk.text as string).includes(m.verbatim as string)).toBe(true);
    expect(containsQuote(pages[Number(chunk.page) - 1], m.verbatim as string)).toBe(true);
  }
  const allText = [...chunks.values()].map((c) => c.text).join('\n');
  expect(allText).not.toMatch(/table row|HIGHLIGHTS/u);
});

test('bad options fail with the usage', async () => {
  const r = await runTs(INGEST_MAIN, ['--extractor', 'model', pdf], env);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('--extractor model needs --model <router model id>');
  expect(r.stderr).toContain('usage: npm run ingest');
});
