/**
 * The content loader: JSONL folder → store, content-addressed MKU ids, idempotent re-loads, pruning of a changed
 * quote's old id, and a table of bad inputs that each name file:line and write nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createHashEmbedder } from '../../../server/knowledge/embedder/hash';
import type { Embedder } from '../../../server/knowledge/embedder/port';
import { ContentError, loadContent, mkuId } from '../../../server/knowledge/loader';
import { IndexMismatchError } from '../../../server/knowledge/store';
import type { KnowledgeStore } from '../../../server/knowledge/store/port';
import { openMemorySqliteStore } from '../../support/knowledge-stores';
import { STORE_FACTORIES } from '../../support/store-factories';

const embedder = createHashEmbedder(64);
const j = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const QUOTE = "En cas d'allergie à la pénicilline, ne pas prescrire d'amoxicilline.";

function baseFiles(quote = QUOTE): Record<string, string> {
  return {
    'sources.jsonl': j([{ source_id: 1, name: 'HAS', org: 'Haute Autorité de Santé' }]),
    'documents.jsonl': j([{ doc_id: 'has-2024', title: 'Prescrire en sécurité', source_id: 1, year: 2024, summary: 'Résumé.' }]),
    'sections.jsonl': j([{ id: 'has-2024-s1', doc_id: 'has-2024', titles: ['Allergies'], pages: [3] }]),
    'chunks.jsonl': j([{ chunk_id: 'has-2024-c1', section_id: 'has-2024-s1', text: 'Allergies : précautions.', page: 3 }]),
    'mkus.jsonl': '// synthetic, not clinical guidance\n' + j([
      { key: 'allergie', chunk_id: 'has-2024-c1', verbatim: quote, criteria: 'allergie à la pénicilline', directive: "ne pas prescrire d'amoxicilline", safety_critical: true, reviewed: true },
      { key: 'surveillance', chunk_id: 'has-2024-c1', verbatim: 'Surveiller la fonction rénale.' },
    ]),
    'concepts.jsonl': j([{ id: 'penicilline', label: 'pénicilline', kind: 'drug' }, { id: 'amoxicilline', label: 'amoxicilline', kind: 'drug' }]),
    'edges.jsonl': j([
      { src: 'penicilline', rel: 'TRIGGERS', dst_key: 'allergie', props: { role: 'criteria', weight: 1 } },
      { src: 'amoxicilline', rel: 'BROADER', dst: 'penicilline' },
      { src_key: 'allergie', rel: 'CROSS_REF', dst_key: 'surveillance', props: { stance: 'AGREE' } },
    ]),
  };
}

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kload-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('loadContent', () => {
  let store: KnowledgeStore;
  beforeEach(() => {
    store = openMemorySqliteStore();
  });
  afterEach(() => store.close());

  test('MKU ids are mku_<doc_id>_<12 hex of sha256(NFC verbatim)>, the same for NFC and NFD input', () => {
    const hex = createHash('sha256').update(QUOTE.normalize('NFC')).digest('hex').slice(0, 12);
    expect(mkuId('has-2024', QUOTE)).toBe(`mku_has-2024_${hex}`);
    expect(mkuId('has-2024', QUOTE.normalize('NFD'))).toBe(mkuId('has-2024', QUOTE));
    expect(mkuId('has-2024', QUOTE + ' ')).not.toBe(mkuId('has-2024', QUOTE));
  });

  test('loads a folder, stamps the index with the embedder, and a re-load changes nothing', async () => {
    const dir = folder(baseFiles());
    const first = await loadContent(store, embedder, dir);
    expect(first).toEqual({ changed: 11, pruned: 0, loaded: { sources: 1, documents: 1, sections: 1, chunks: 1, mkus: 2, concepts: 2, edges: 3 } });
    expect(await store.indexInfo()).toEqual({ embedder_id: 'hash-v1-64', dimension: 64 });
    const id = mkuId('has-2024', QUOTE);
    const m = (await store.mkusById([id])).get(id)!;
    expect(m).toMatchObject({ verbatim: QUOTE, safety_critical: true, reviewed: true, lang: 'fr', chunk_id: 'has-2024-c1', population: [] });
    expect(m.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await store.provenance([id])).get(id)).toMatchObject({ doc_title: 'Prescrire en sécurité', pages: ['3'], source_name: 'HAS' });
    expect((await store.mkusByConcepts(['amoxicilline'], 1)).map((h) => h.mku.id)).toEqual([id]);
    expect((await loadContent(store, embedder, dir)).changed).toBe(0);
    expect((await loadContent(store, embedder, fs.readdirSync(dir).map((f) => path.join(dir, f)))).changed).toBe(0);
  });

  test('a changed quote gets a new id; the old MKU and its edges are pruned; keys follow the new id', async () => {
    await loadContent(store, embedder, folder(baseFiles()));
    const oldId = mkuId('has-2024', QUOTE);
    const quote2 = QUOTE.replace('amoxicilline', 'ampicilline');
    const report = await loadContent(store, embedder, folder(baseFiles(quote2)));
    const newId = mkuId('has-2024', quote2);
    expect(report.pruned).toBe(1);
    expect(report.changed).toBe(1 + 2 + 1); // new MKU, its two edges, the pruned one
    expect((await store.mkusById([oldId, newId])).has(oldId)).toBe(false);
    expect((await store.mkusByConcepts(['penicilline'], 0)).map((h) => h.mku.id)).toEqual([newId]);
    expect((await store.crossRefs([newId], 1)).map((r) => r.from_id)).toEqual([newId]);
    expect(await store.counts()).toMatchObject({ mkus: 2, edges: 3 });
  });

  test('a supplied id that agrees is accepted', async () => {
    const files = baseFiles();
    files['mkus.jsonl'] = j([{ id: mkuId('has-2024', QUOTE), doc_id: 'has-2024', chunk_id: 'has-2024-c1', verbatim: QUOTE }]);
    files['edges.jsonl'] = '';
    expect((await loadContent(store, embedder, folder(files))).loaded.mkus).toBe(1);
  });

  const BAD: Array<[string, string, string, RegExp]> = [
    ['invalid JSON', 'mkus.jsonl', '{"chunk_id": "has-2024-c1", \n', /mkus\.jsonl:1: not valid JSON/],
    ['a missing verbatim', 'mkus.jsonl', j([{ key: 'a', chunk_id: 'has-2024-c1', verbatim: 'x' }, { chunk_id: 'has-2024-c1' }]), /mkus\.jsonl:2: invalid mkus line: .*verbatim/],
    ['an unknown field', 'concepts.jsonl', j([{ id: 'x', label: 'x', colour: 'red' }]), /concepts\.jsonl:1: .*must NOT have additional properties 'colour'/],
    ['an unknown chunk', 'mkus.jsonl', j([{ chunk_id: 'nope', verbatim: 'x' }]), /mkus\.jsonl:1: unknown chunk_id 'nope'/],
    ['a disagreeing id', 'mkus.jsonl', j([{ id: 'mku_has-2024_000000000000', chunk_id: 'has-2024-c1', verbatim: QUOTE }]), /mkus\.jsonl:1: supplied id 'mku_has-2024_000000000000' disagrees with the content-addressed id 'mku_has-2024_[0-9a-f]{12}'/],
    ['a disagreeing doc_id', 'mkus.jsonl', j([{ doc_id: 'other', chunk_id: 'has-2024-c1', verbatim: QUOTE }]), /doc_id 'other' disagrees/],
    ['a duplicate quote', 'mkus.jsonl', j([{ chunk_id: 'has-2024-c1', verbatim: QUOTE }, { chunk_id: 'has-2024-c1', verbatim: QUOTE.normalize('NFD') }]), /mkus\.jsonl:2: duplicate MKU/],
    ['a duplicate document', 'documents.jsonl', j([{ doc_id: 'has-2024', title: 't', source_id: 1 }, { doc_id: 'has-2024', title: 't', source_id: 1 }]), /documents\.jsonl:2: duplicate doc_id 'has-2024' \(first at .*documents\.jsonl:1\)/],
    ['an unknown source', 'documents.jsonl', j([{ doc_id: 'has-2024', title: 't', source_id: 9 }]), /unknown source_id '9'/],
    ['a CROSS_REF without stance', 'edges.jsonl', j([{ src_key: 'allergie', rel: 'CROSS_REF', dst_key: 'surveillance' }]), /edges\.jsonl:1: .*stance/],
    ['a bad stance', 'edges.jsonl', j([{ src_key: 'allergie', rel: 'CROSS_REF', dst_key: 'surveillance', props: { stance: 'MAYBE' } }]), /edges\.jsonl:1: .*AGREE, DISAGREE, PARTIAL, LINEAGE/],
    ['TRIGGERS to a concept', 'edges.jsonl', j([{ src: 'penicilline', rel: 'TRIGGERS', dst: 'amoxicilline' }]), /TRIGGERS must link concept → MKU/],
    ['an unknown MKU key', 'edges.jsonl', j([{ src: 'penicilline', rel: 'TRIGGERS', dst_key: 'ghost' }]), /unknown MKU key 'ghost'/],
    ['both src and src_key', 'edges.jsonl', j([{ src: 'penicilline', src_key: 'allergie', rel: 'TRIGGERS', dst_key: 'allergie' }]), /exactly one of src \/ src_key/],
    ['an unknown kind of file', 'notes.jsonl', j([{ a: 1 }]), /notes\.jsonl: cannot tell the content kind/],
  ];

  test.each(BAD)('%s is a ContentError naming the file and line, and nothing is written', async (_what, file, text, message) => {
    const files = { ...baseFiles(), [file]: text };
    const err = await loadContent(store, embedder, folder(files)).catch((e: Error) => e);
    expect(err).toBeInstanceOf(ContentError);
    expect((err as Error).message).toMatch(message);
    expect(Object.values(await store.counts()).every((n) => n === 0)).toBe(true);
    expect(await store.indexInfo()).toBeNull();
  });

  test('a missing path is a ContentError', async () => {
    await expect(loadContent(store, embedder, '/no/such/folder')).rejects.toThrow(/\/no\/such\/folder: no such file or folder/);
  });

  test('an index built by another embedder is refused before anything is written', async () => {
    const dir = folder(baseFiles());
    await loadContent(store, embedder, dir);
    const before = await store.counts();
    const err = await loadContent(store, createHashEmbedder(32), dir).catch((e: Error) => e);
    expect(err).toBeInstanceOf(IndexMismatchError);
    expect((err as Error).message).toMatch(/'hash-v1-64' \(dimension 64\).*'hash-v1-32' \(dimension 32\)/);
    expect(await store.counts()).toEqual(before);
  });

  test('an embedder failure writes nothing', async () => {
    const failing: Embedder = { id: 'hash-v1-64', dimension: 64, embed: async () => { throw new Error('embedder down'); } };
    await expect(loadContent(store, failing, folder(baseFiles()))).rejects.toThrow('embedder down');
    expect((await store.counts()).mkus).toBe(0);
  });
});

describe.each(STORE_FACTORIES)('loadContent on $name', ({ open }) => {
  test('re-loading changes nothing; a changed quote replaces its MKU', async () => {
    const store = await open();
    try {
      expect((await loadContent(store, embedder, folder(baseFiles()))).changed).toBe(11);
      expect((await loadContent(store, embedder, folder(baseFiles()))).changed).toBe(0);
      const quote2 = QUOTE.replace('amoxicilline', 'ampicilline');
      expect(await loadContent(store, embedder, folder(baseFiles(quote2)))).toMatchObject({ changed: 4, pruned: 1 });
      expect((await store.lexicalMkus('AMPICILLINE', 5)).map((h) => h.mku.id)).toEqual([mkuId('has-2024', quote2)]);
      expect(await store.lexicalMkus('amoxicilline', 5)).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
