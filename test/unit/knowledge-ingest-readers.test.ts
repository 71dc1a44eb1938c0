/**
 * The ingest readers below the extractors: Markdown and HTML → blocks (tables and scripts never become
 * text), blocks → sections (heading chain, list lead-ins, stable ids), and the corpus PROVENANCE.md parser
 * on the real FDA corpus file.
 */
import path from 'node:path';
import { readHtml, readMarkdown } from '../../server/knowledge/ingest/markup';
import { docKey, readProvenance } from '../../server/knowledge/ingest/provenance';
import { buildSections } from '../../server/knowledge/ingest/structure';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/knowledge-ingest');

test('Markdown: headings with levels, list items as bullets, tables skipped', () => {
  const { title, blocks } = readMarkdown(path.join(FIXTURES, 'anticoag-note.md'));
  expect(title).toBe('Synthetic warfarin note');
  expect(blocks.filter((b) => b.kind === 'heading').map((b) => [b.level, b.text])).toEqual([
    [1, 'Synthetic warfarin note'], [2, 'Contraindications'], [2, 'Drug interactions'], [2, 'Use in specific populations'], [2, 'Description'],
  ]);
  expect(blocks.filter((b) => b.bullet).map((b) => b.text)).toEqual(['Pregnancy', 'Active bleeding of the gastrointestinal tract']);
  expect(blocks.some((b) => /table rows|never a unit/u.test(b.text))).toBe(false);
});

test('HTML: the <title>, block elements as blocks, tables and scripts skipped, entities decoded', () => {
  const { title, blocks } = readHtml(path.join(FIXTURES, 'antibiotic-leaflet.html'));
  expect(title).toBe('Synthetic amoxicillin leaflet');
  expect(blocks.map((b) => b.text)).toEqual([
    'Synthetic amoxicillin leaflet',
    'SYNTHETIC TEST CONTENT written for the ingest tests — NOT CLINICAL GUIDANCE.',
    'Dosage and administration',
    'In patients with severe renal impairment, reduce the dose of amoxicillin by half.',
    'Drug interactions',
    'Appropriate monitoring should be undertaken when anticoagulants are prescribed concurrently with amoxicillin.',
    'Clinical pharmacology',
    'Amoxicillin should be absorbed quickly; this section is descriptive.',
  ]);
});

test('sections: the heading chain without the document title, numbered ids, list lead-ins, kinds', () => {
  const sections = buildSections('doc', 'Label', [
    { kind: 'para', text: 'Before any heading.', pages: [1] },
    { kind: 'heading', text: 'Label', pages: [], level: 1 },
    { kind: 'heading', text: '4 CONTRAINDICATIONS', pages: [2], level: 1 },
    { kind: 'para', text: 'X is contraindicated in:', pages: [2] },
    { kind: 'para', text: 'Pregnancy', pages: [2], bullet: true },
    { kind: 'para', text: 'Bleeding', pages: [3], bullet: true },
    { kind: 'heading', text: '7 DRUG INTERACTIONS', pages: [3], level: 1 },
    { kind: 'heading', text: '7.4 Antibiotics', pages: [3], level: 2 },
    { kind: 'para', text: 'Monitor INR.', pages: [3, 4] },
    { kind: 'heading', text: 'Drug interactions', pages: [], level: 2 },
    { kind: 'para', text: 'Same title twice gets a distinct id.', pages: [] },
  ]);
  expect(sections.map((s) => [s.id, s.titles, s.pages, s.kind])).toEqual([
    ['doc.intro', ['Label'], [1], 'other'],
    ['doc.s4', ['4 CONTRAINDICATIONS'], [2, 3], 'contraindication'],
    ['doc.s7.4', ['7 DRUG INTERACTIONS', '7.4 Antibiotics'], [3, 4], 'interaction'],
    ['doc.drug-interactions', ['7 DRUG INTERACTIONS', 'Drug interactions'], [], 'interaction'],
  ]);
  expect(sections[1].chunks.map((c) => [c.chunkId, c.bullet, c.leadIn])).toEqual([
    ['doc.s4.c1', false, null], ['doc.s4.c2', true, 'X is contraindicated in:'], ['doc.s4.c3', true, 'X is contraindicated in:'],
  ]);
});

test('PROVENANCE.md of the FDA corpus: organisation per labeler, blob URL, year, licence, retrieval date, file hash', () => {
  const prov = readProvenance(path.resolve(ROOT, '../shared/knowledge-corpus/fda-labels/PROVENANCE.md'));
  expect([...prov.keys()].sort()).toEqual(['fda_amoxicillin_highlights_2025', 'fda_lisinopril_highlights_2025', 'fda_metformin_highlights_2026', 'fda_warfarin_label_2025']);
  expect(prov.get('fda_warfarin_label_2025')).toEqual({
    docId: 'fda_warfarin_label_2025',
    title: 'WARFARIN SODIUM tablet (Golden State Medical Supply, Inc.)',
    org: 'U.S. Food and Drug Administration — approved labeling (labeler: Golden State Medical Supply, Inc.), via DailyMed / NLM',
    sourceName: 'FDA',
    url: 'https://github.com/parthtiwari-dev/Evidence-Bound-Drug-RAG/blob/a7418974c7ec1309fbbab76ecf9b25c62f317a01/data/raw/fda/fda_warfarin_label_2025.pdf',
    year: 2025,
    license: 'CC0 1.0 Universal (public domain dedication). Data provided by the U.S. Food and Drug Administration (https://open.fda.gov)',
    retrievedAt: '2026-02-16',
    fileSha256: 'bfebf50a642fc62149428c0a76ababf80c2f8d2d53e89171602fbde155f7b984',
  });
  expect(prov.get('fda_metformin_highlights_2026')?.year).toBe(2026);
});

test.each<[string, string]>([['fda_warfarin_label_2025.pdf', 'fda_warfarin_label_2025'], ['anticoag-note.md', 'anticoag_note'], ['My Leaflet (v2).HTML', 'my_leaflet_v2']])('document id of %j → %j', (file, id) => {
  expect(docKey(file)).toBe(id);
});
