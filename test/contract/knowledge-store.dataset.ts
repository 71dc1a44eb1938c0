/**
 * The contract suite's own small dataset (synthetic, not clinical guidance): two documents (one with summaries,
 * one without), six MKUs, a concept graph with a 6-hop chain for the depth cap, and a CROSS_REF chain of every
 * stance including LINEAGE for the hop cap. Vectors come from the hash embedder.
 */
import { createHashEmbedder } from '../../server/knowledge/embedder/hash';
import { mkuId } from '../../server/knowledge/loader/mku-id';
import type { Concept, ContentBatch, Edge, Mku } from '../../server/knowledge/store/port';

export const embedder = createHashEmbedder(64);

const VERBATIMS = {
  m1: "En cas d'allergie à la pénicilline, ne pas prescrire d'amoxicilline.",
  m2: 'Chez la femme enceinte, éviter les AINS après 24 semaines.',
  m3: 'La metformine est le traitement de première intention du diabète de type 2.',
  m4: "Surveiller l'INR chez les patients sous antivitamine K.",
  m5: 'PENICILLINE G : adapter la posologie à la fonction rénale.',
  m6: 'Ancienne version : metformine en deuxième intention.',
} as const;
type Key = keyof typeof VERBATIMS;
const DOC: Record<Key, string> = { m1: 'd1', m2: 'd1', m3: 'd2', m4: 'd2', m5: 'd2', m6: 'd2' };
const CHUNK: Record<Key, string> = { m1: 'c1', m2: 'c1', m3: 'c2', m4: 'c2', m5: 'c3', m6: 'c3' };
const SAFETY: Key[] = ['m1', 'm2'];

export const ID = Object.fromEntries(Object.entries(VERBATIMS).map(([k, v]) => [k, mkuId(DOC[k as Key], v)])) as Record<Key, string>;

export function mku(k: Key, over: Partial<Mku> = {}): Mku {
  return {
    id: ID[k], verbatim: VERBATIMS[k], criteria: '', directive: '', mku_class: null, population: [], safety_critical: SAFETY.includes(k),
    reviewed: k !== 'm4', evidence_grade: k === 'm1' ? 'A' : null, strength: null, lang: 'fr', content_hash: `hash-${k}`, chunk_id: CHUNK[k], ...over,
  };
}

const vec = (t: string) => embedder.embed([t]).then((v) => v[0]);

const CONCEPTS: Array<Omit<Concept, 'source'>> = [
  { id: 'penicilline', label: 'pénicilline', synonyms: ['pénicillines'], kind: 'drug' },
  { id: 'beta-lactamines', label: 'bêta-lactamines', synonyms: [], kind: 'drug' },
  { id: 'amoxicilline', label: 'amoxicilline', synonyms: [], kind: 'drug' },
  { id: 'grossesse', label: 'grossesse', synonyms: ['femme enceinte'], kind: 'population' },
  { id: 'ains', label: 'AINS', synonyms: ['anti-inflammatoires non stéroïdiens'], kind: 'drug' },
  { id: 'metformine', label: 'metformine', synonyms: [], kind: 'drug' },
  { id: 'diabete', label: 'diabète de type 2', synonyms: [], kind: 'condition' },
  { id: 'avk', label: 'AVK', synonyms: ['antivitamine K'], kind: 'drug' },
  ...[0, 1, 2, 3, 4, 5, 6].map((i): Omit<Concept, 'source'> => ({ id: `chain${i}`, label: `maillon ${'abcdefg'[i]}`, synonyms: [], kind: 'other' })),
];

export const EDGES: Edge[] = [
  { src: 'penicilline', rel: 'TRIGGERS', dst: ID.m1, props: { role: 'criteria', weight: 1 } },
  { src: 'penicilline', rel: 'TRIGGERS', dst: ID.m5, props: { role: 'criteria', weight: 0.8 } },
  { src: 'amoxicilline', rel: 'TRIGGERS', dst: ID.m1, props: { role: 'directive', weight: 0.5 } },
  { src: 'grossesse', rel: 'TRIGGERS', dst: ID.m2, props: { role: 'criteria' } },
  { src: 'ains', rel: 'TRIGGERS', dst: ID.m2, props: { role: 'directive' } },
  { src: 'metformine', rel: 'TRIGGERS', dst: ID.m3, props: { role: 'directive' } },
  { src: 'avk', rel: 'TRIGGERS', dst: ID.m4, props: { role: 'criteria' } },
  { src: 'penicilline', rel: 'BROADER', dst: 'beta-lactamines', props: {} },
  { src: 'amoxicilline', rel: 'BROADER', dst: 'beta-lactamines', props: {} },
  { src: 'diabete', rel: 'RELATED', dst: 'metformine', props: {} },
  // chain0 — chain1 — … — chain6 —TRIGGERS→ m6: six concept hops from chain0, five from chain1.
  ...[0, 1, 2, 3, 4, 5].map((i): Edge => ({ src: `chain${i}`, rel: 'RELATED', dst: `chain${i + 1}`, props: {} })),
  { src: 'chain6', rel: 'TRIGGERS', dst: ID.m6, props: {} },
  // m3 —PARTIAL— m4 —AGREE— m2 —DISAGREE— m1 —AGREE— m5 ; m3 —LINEAGE— m6 —AGREE— m5
  { src: ID.m3, rel: 'CROSS_REF', dst: ID.m4, props: { stance: 'PARTIAL', note: 'même population' } },
  { src: ID.m4, rel: 'CROSS_REF', dst: ID.m2, props: { stance: 'AGREE' } },
  { src: ID.m2, rel: 'CROSS_REF', dst: ID.m1, props: { stance: 'DISAGREE' } },
  { src: ID.m1, rel: 'CROSS_REF', dst: ID.m5, props: { stance: 'AGREE' } },
  { src: ID.m3, rel: 'CROSS_REF', dst: ID.m6, props: { stance: 'LINEAGE' } },
  { src: ID.m6, rel: 'CROSS_REF', dst: ID.m5, props: { stance: 'AGREE' } },
];

export const CHUNK_TEXT = {
  c1: 'Allergies et grossesse : précautions de prescription.',
  c2: 'Diabète de type 2 et anticoagulants : suivi.',
  c3: 'Pénicilline G et anciennes recommandations sur la metformine.',
} as const;

export async function dataset(): Promise<ContentBatch> {
  return {
    sources: [{ source_id: 1, name: 'HAS', org: 'Haute Autorité de Santé' }, { source_id: 2, name: 'SFAR', org: 'Société française d’anesthésie' }],
    documents: [
      { doc_id: 'd1', title: 'Prescrire en sécurité', url: 'https://example.org/d1', year: 2024, reco_id: 'r1', source_id: 1, summary: 'Résumé du document 1.', license: 'CC0', lang: 'fr' },
      { doc_id: 'd2', title: 'Suivi chronique', url: null, year: null, reco_id: null, source_id: 2, summary: null, license: null, lang: 'fr' },
    ],
    sections: [
      { id: 's1', doc_id: 'd1', titles: ['Allergies'], pages: ['3', '4'], summary: 'Résumé de la section allergies.' },
      { id: 's2', doc_id: 'd2', titles: ['Diabète', 'Suivi'], pages: ['12'], summary: null },
    ],
    chunks: await Promise.all(
      (['c1', 'c2', 'c3'] as const).map(async (c) => ({ chunk_id: c, section_id: c === 'c1' ? 's1' : 's2', text: CHUNK_TEXT[c], page: c === 'c2' ? '12' : null, embedding: await vec(CHUNK_TEXT[c]) })),
    ),
    mkus: await Promise.all((Object.keys(VERBATIMS) as Key[]).map(async (k) => ({ ...mku(k), ctx_embedding: await vec(VERBATIMS[k]) }))),
    concepts: await Promise.all(CONCEPTS.map(async (c) => ({ ...c, synonyms: [...c.synonyms], source: 'local', embedding: await vec([c.label, ...c.synonyms].join(' ; ')) }))),
    edges: EDGES,
  };
}

export const TOTAL_ROWS = 2 + 2 + 2 + 3 + 6 + CONCEPTS.length + EDGES.length;
