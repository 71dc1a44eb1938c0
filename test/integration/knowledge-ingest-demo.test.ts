/**
 * The bundled demo knowledge base (data/knowledge/demo): `npm run build:demo-kb` reproduces the committed
 * JSONL byte for byte from ../shared/knowledge-corpus/fda-labels; every MKU verbatim is the exact bytes of
 * its chunk and is found in the text of its page(s) under the extractor's whitespace rule (all whitespace
 * removed on both sides: the PDF drops spaces next to italics); the English gold set gets 100 % safety
 * recall, and a warfarin patient asking about amoxicillin gets the warfarin–antibiotic interaction swept.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbedder } from '../../server/knowledge/embedder';
import { evaluateGold, readGold } from '../../server/knowledge/eval';
import { loadContent } from '../../server/knowledge/loader';
import { runContext } from '../../server/knowledge/pipeline/context';
import { containsQuote } from '../../server/knowledge/ingest/text';
import { INGEST_MAIN, pdfPageTexts, ROOT, runTs } from '../support/ingest-child';
import { openMemorySqliteStore } from '../support/knowledge-stores';

const DEMO = path.join(ROOT, 'data/knowledge/demo');
const CORPUS = path.resolve(ROOT, '../shared/knowledge-corpus/fda-labels');
const GOLD = path.join(ROOT, 'test/fixtures/knowledge-demo/gold.json');
const jsonl = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('//')).map((l) => JSON.parse(l) as Record<string, unknown>);
const mkus = jsonl(path.join(DEMO, 'mkus.jsonl'));
const chunks = new Map(jsonl(path.join(DEMO, 'chunks.jsonl')).map((c) => [c.chunk_id as string, c]));

/** The build:demo-kb arguments from package.json, with the output redirected. */
function buildArgs(out: string): string[] {
  const script = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['build:demo-kb'];
  const args = script.split(/\s+/u);
  const rest = args.slice(args.indexOf('server/knowledge/ingest/main.ts') + 1);
  const at = rest.indexOf('--out');
  expect(rest[at + 1]).toBe('data/knowledge/demo');
  rest[at + 1] = out;
  return rest;
}

test('the demo KB rebuild reproduces the committed files byte for byte', async () => {
  expect(fs.existsSync(CORPUS)).toBe(true);
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'demo-kb-')), 'demo');
  const r = await runTs(INGEST_MAIN, buildArgs(out));
  expect(r.code).toBe(0);
  const generated = fs.readdirSync(out).sort();
  expect(generated).toEqual(['chunks.jsonl', 'concepts.jsonl', 'documents.jsonl', 'edges.jsonl', 'manifest.json', 'mkus.jsonl', 'sections.jsonl', 'sources.jsonl']);
  for (const f of generated) expect(fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(DEMO, f)))).toBe(true);
});

test('every demo MKU verbatim is its chunk\'s own bytes and is found in its page text', async () => {
  const pdfs = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.pdf')).map((f) => path.join(CORPUS, f));
  const texts = await pdfPageTexts(pdfs);
  let checked = 0;
  for (const m of mkus) {
    const chunk = chunks.get(m.chunk_id as string)!;
    expect((chunk.text as string).includes(m.verbatim as string)).toBe(true);
    const [lo, hi] = String(chunk.page).split('-').map(Number);
    const pages = texts[`${m.doc_id as string}.pdf`].slice(lo - 1, (hi || lo));
    if (!containsQuote(pages.join('\n'), m.verbatim as string)) throw new Error(`${m.id as string} not found on page ${String(chunk.page)}: ${m.verbatim as string}`);
    checked++;
  }
  expect(checked).toBe(mkus.length);
});

test('the demo KB is a sensible size and covers all four labels with safety-critical units', () => {
  expect(mkus.length).toBeGreaterThan(100);
  expect(mkus.length).toBeLessThanOrEqual(400);
  const docs = ['fda_amoxicillin_highlights_2025', 'fda_lisinopril_highlights_2025', 'fda_metformin_highlights_2026', 'fda_warfarin_label_2025'];
  for (const d of docs) expect(mkus.some((m) => m.doc_id === d && m.safety_critical === true)).toBe(true);
  // No unit quotes a table caption or comes from outside the recommendation sections.
  expect(mkus.filter((m) => /^Table \d/u.test(m.verbatim as string))).toEqual([]);
  expect(new Set(mkus.map((m) => m.mku_class))).toEqual(new Set(['boxed_warning', 'contraindication', 'interaction', 'warning', 'dosage', 'population']));
});

test('English gold set: ids exist and quote what they say; safety recall is 100 %; warfarin + amoxicillin sweeps the interaction', async () => {
  const gold = readGold(GOLD) as ReturnType<typeof readGold> & { cases: Array<{ expected_verbatim_prefixes: { mkus: string[]; safety_items: string[] } }> };
  const byId = new Map(mkus.map((m) => [m.id as string, m.verbatim as string]));
  for (const c of gold.cases) {
    c.expected_mkus.forEach((id, i) => expect(byId.get(id)?.startsWith(c.expected_verbatim_prefixes.mkus[i])).toBe(true));
    c.expected_safety_items.forEach((id, i) => expect(byId.get(id)?.startsWith(c.expected_verbatim_prefixes.safety_items[i])).toBe(true));
  }
  expect(gold.cases.length).toBeGreaterThanOrEqual(12);
  const store = openMemorySqliteStore();
  const embedder = createEmbedder();
  try {
    await loadContent(store, embedder, DEMO);
    const deps = { store, embedder, policy: { allowUnreviewed: false, model: null } };
    const report = await evaluateGold(deps, gold);
    expect(report.cases.filter((c) => c.missingSafety.length)).toEqual([]);
    expect(report.safetyRecall).toBe(1);
    const interaction = mkus.find((m) => String(m.verbatim).startsWith('Closely monitor INR when starting or stopping any antibiotic'))!;
    const out = await runContext(deps, { query: "Can I start amoxicillin for this patient's sinusitis?", patient_ehr: { current_treatments: ['warfarin'] } });
    expect(out.safety_items).toContain(interaction.id);
    expect(out.mkus.find((m) => m.id === interaction.id)?.provenance).toMatchObject({
      doc_id: 'fda_warfarin_label_2025', pages: ['14'], section_titles: ['7 DRUG INTERACTIONS', '7.4 Antibiotics and Antifungals'],
      source_org: 'U.S. Food and Drug Administration — approved labeling (labeler: Golden State Medical Supply, Inc.), via DailyMed / NLM',
    });
  } finally {
    await store.close();
  }
});
