/**
 * `ingest()` on the Markdown + HTML fixtures into in-memory stores: idempotent by content hash (a re-run
 * changes nothing), dry runs write nothing, the generated JSONL is byte-stable and loadable by the
 * start-up loader, tables are never quoted, safety flags / TRIGGERS / CROSS_REF candidates come out as
 * specified, and the read plane's safety sweep finds the ingested interaction for a warfarin patient.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbedder } from '../../server/knowledge/embedder';
import { ingest, type IngestOptions } from '../../server/knowledge/ingest';
import { loadContent } from '../../server/knowledge/loader';
import { runContext } from '../../server/knowledge/pipeline/context';
import type { KnowledgeStore } from '../../server/knowledge/store/port';
import { openMemorySqliteStore } from '../support/knowledge-stores';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/knowledge-ingest');
const VOCABULARY = path.join(ROOT, 'data/knowledge/demo-concepts.yaml');
const embedder = createEmbedder();

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-test-'));
const base = (over: Partial<IngestOptions> = {}): IngestOptions => ({ inputs: [FIXTURES], extractor: 'rules', vocabularyFile: VOCABULARY, reviewed: true, embedder, ...over });
const readDir = (dir: string) => Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));

let store: KnowledgeStore;
beforeEach(() => {
  store = openMemorySqliteStore();
});
afterEach(async () => {
  await store.close();
});

test('a re-run on the same files changes nothing (the loader reports changed: 0)', async () => {
  const first = await ingest(base({ store }));
  expect(first.files.map((f) => path.basename(f))).toEqual(['antibiotic-leaflet.html', 'anticoag-note.md']);
  expect(first.load!.changed).toBeGreaterThan(0);
  const counts = await store.counts();
  expect(counts).toMatchObject({ documents: 2, mkus: first.mkus });
  const second = await ingest(base({ store }));
  expect(second.load).toEqual({ ...first.load, changed: 0, pruned: 0 });
  expect(await store.counts()).toEqual(counts);
});

test('a dry run writes nothing, to the store or the out folder, and says what would change', async () => {
  const out = path.join(tmp(), 'out');
  const dry = await ingest(base({ store, outDir: out, dryRun: true }));
  expect(fs.existsSync(out)).toBe(false);
  expect(await store.counts()).toEqual({ sources: 0, documents: 0, sections: 0, chunks: 0, mkus: 0, concepts: 0, edges: 0 });
  expect(dry.load).toBeNull();
  expect(dry.diff).toEqual({ baseline: 'store', documents: null, sections: null, mkus: { added: dry.mkus, changed: 0, unchanged: 0, removed: null } });

  await ingest(base({ store, outDir: out }));
  const before = readDir(out);
  const again = await ingest(base({ store, outDir: out, dryRun: true }));
  expect(readDir(out)).toEqual(before);
  expect(again.diff).toEqual({
    baseline: 'out-folder',
    documents: { added: 0, changed: 0, removed: 0, unchanged: 2 },
    sections: { added: 0, changed: 0, removed: 0, unchanged: again.sections },
    mkus: { added: 0, changed: 0, removed: 0, unchanged: again.mkus },
  });
});

test('an edited quote gets a new id, the old MKU is pruned, and a dry run over --out reports it', async () => {
  const dir = tmp();
  for (const f of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, f), path.join(dir, f));
  const out = path.join(dir, 'out');
  const first = await ingest(base({ inputs: [dir], store, outDir: out }));
  const md = path.join(dir, 'anticoag-note.md');
  fs.writeFileSync(md, fs.readFileSync(md, 'utf8').replace('consider an alternative anticoagulant', 'consider another anticoagulant'));
  const dry = await ingest(base({ inputs: [dir], store, outDir: out, dryRun: true }));
  expect(dry.diff!.mkus).toEqual({ added: 1, changed: 0, removed: 1, unchanged: first.mkus - 1 });
  const second = await ingest(base({ inputs: [dir], store, outDir: out }));
  expect(second.load!.pruned).toBe(1);
  expect((await store.counts()).mkus).toBe(first.mkus);
});

test('the generated JSONL is byte-stable and loads through the start-up loader unchanged', async () => {
  const a = path.join(tmp(), 'a');
  const b = path.join(tmp(), 'b');
  await ingest(base({ outDir: a }));
  await ingest(base({ outDir: b, store }));
  expect(readDir(a)).toEqual(readDir(b));
  // Loading the files is the same write as the ingest: nothing changes.
  const report = await loadContent(store, embedder, a);
  expect(report.changed).toBe(0);
});

test('units: verbatims from the recommendation sections only, never tables or scripts; flags, roles and provenance', async () => {
  const r = await ingest(base());
  const mkus = r.records.mkus as Array<Record<string, unknown>>;
  const verbatims = mkus.map((m) => m.verbatim as string).sort();
  expect(verbatims).toEqual([
    'Active bleeding of the gastrointestinal tract',
    'Appropriate monitoring should be undertaken when anticoagulants are prescribed concurrently with amoxicillin.',
    'Closely monitor INR when starting or stopping any antibiotic in patients taking warfarin.',
    'If the patient becomes pregnant while taking warfarin, discontinue warfarin and consider an alternative anticoagulant.',
    'In patients with severe renal impairment, reduce the dose of amoxicillin by half.',
    'Pregnancy',
  ]);
  const by = (start: string) => mkus.find((m) => (m.verbatim as string).startsWith(start))!;
  expect(by('Pregnancy')).toMatchObject({ safety_critical: true, mku_class: 'contraindication', criteria: 'Pregnancy', directive: 'Drug X tablets are contraindicated in', population: ['pregnancy'] });
  expect(by('Closely monitor')).toMatchObject({ safety_critical: true, mku_class: 'interaction' });
  expect(by('In patients with severe')).toMatchObject({ safety_critical: false, criteria: 'In patients with severe renal impairment', directive: 'reduce the dose of amoxicillin by half.' });
  const edges = r.records.edges as Array<{ src: string; rel: string; dst: string; props: Record<string, unknown> }>;
  const triggers = (id: unknown) => edges.filter((e) => e.rel === 'TRIGGERS' && e.dst === id).map((e) => `${e.src}:${String(e.props.role)}`).sort();
  expect(triggers(by('In patients with severe').id)).toEqual(['c_amoxicillin:directive', 'c_renal_impairment:criteria']);
  expect(triggers(by('Closely monitor').id)).toEqual(['c_antibiotic:directive', 'c_inr:directive', 'c_warfarin:directive']);
  // The same interaction stated by both documents: one conservative PARTIAL candidate.
  expect(edges.filter((e) => e.rel === 'CROSS_REF')).toEqual([expect.objectContaining({ props: expect.objectContaining({ stance: 'PARTIAL' }) })]);
  const cross = edges.find((e) => e.rel === 'CROSS_REF')!;
  expect([cross.src, cross.dst].sort()).toEqual([by('Appropriate monitoring').id, by('Closely monitor').id].sort());
  // Provenance from the PROVENANCE.md beside the inputs.
  expect(r.records.documents).toEqual([
    expect.objectContaining({ doc_id: 'antibiotic_leaflet', title: 'Synthetic amoxicillin leaflet (Test Labeler B)', year: 2024, lang: 'en', license: expect.stringContaining('CC0 1.0') }),
    expect.objectContaining({ doc_id: 'anticoag_note', year: 2025, url: 'https://github.com/example/synthetic-ingest-fixtures/blob/0123456789abcdef0123456789abcdef01234567/fixtures/anticoag-note.md' }),
  ]);
  expect(r.records.sources.map((s) => s.org).sort()).toEqual(['Synthetic Test Authority — test labeling (labeler: Test Labeler A)', 'Synthetic Test Authority — test labeling (labeler: Test Labeler B)']);
  expect(r.records.sections.map((s) => s.titles)).toContainEqual(['Description']);
  expect(verbatims.some((v) => /table|script|descriptive|Monitor nothing/iu.test(v))).toBe(false);
});

test('without --reviewed the units are unreviewed; without provenance the documents say so', async () => {
  const r = await ingest(base({ reviewed: false, provenanceFile: null }));
  expect(r.records.mkus.every((m) => m.reviewed === false)).toBe(true);
  expect(r.records.documents.every((d) => d.url === null && d.license === null)).toBe(true);
  expect(r.records.sources).toEqual([expect.objectContaining({ org: 'Local documents (no provenance record)' })]);
});

test('the safety sweep of /v2/context finds the ingested warfarin–antibiotic interaction for a warfarin patient', async () => {
  const r = await ingest(base({ store }));
  const interaction = r.records.mkus.find((m) => String(m.verbatim).startsWith('Closely monitor INR'))!.id as string;
  const out = await runContext({ store, embedder, policy: { allowUnreviewed: false, model: null } }, {
    query: "Can I start amoxicillin for this patient's sinusitis?",
    patient_ehr: { current_treatments: ['warfarin'] },
  });
  expect(out.safety_items).toContain(interaction);
  const hit = out.mkus.find((m) => m.id === interaction)!;
  expect(hit.paths).toContain('safety');
  expect(hit.provenance).toMatchObject({ doc_id: 'anticoag_note', source_org: 'Synthetic Test Authority — test labeling (labeler: Test Labeler A)', section_titles: ['Drug interactions'] });
});
