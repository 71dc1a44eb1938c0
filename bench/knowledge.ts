/**
 * Knowledge layer: `/v2/context` pipeline latency (p50/p99, in process) and store query time (MKU vector KNN,
 * concept graph walk) on generated content of 5k and 50k MKUs, per engine — SQLite with sqlite-vec, Postgres
 * through PGlite + pgvector, a real PostgreSQL server + pgvector — against the brute-force baseline (SQLite
 * with the TypeScript cosine scan) in the same run. PGlite is measured at 5k only unless `--full` (its HNSW
 * build at 50k takes minutes). The PostgreSQL server is a throw-away cluster the bench starts
 * (test/support/postgres-cluster.ts: loopback, fsync off, each size in a fresh database), measured just loaded
 * and again after ANALYZE; without one on this machine its rows are left out with a note. Each engine must hold
 * every generated MKU after the load. `npm run bench:knowledge [-- --full]`.
 */
import { createEmbedder } from '../server/knowledge/embedder';
import type { ContentPlan } from '../server/knowledge/loader/assemble';
import { writePlan } from '../server/knowledge/loader';
import { contentHash, mkuId } from '../server/knowledge/loader/mku-id';
import { runContext } from '../server/knowledge/pipeline/context';
import type { KnowledgeStore } from '../server/knowledge/store/port';
import { openMemorySqliteStore, openPgliteStore, openRealPostgresStore } from '../test/support/knowledge-stores';
import { INSTALL_HINT, postgresLookup } from '../test/support/postgres-cluster';
import { runAsMain, writeResult } from './support/results';
import { Client } from 'pg';

const WORDS = ['angine', 'fièvre', 'toux', 'douleur', 'rein', 'foie', 'cœur', 'tension', 'glycémie', 'allergie', 'grossesse', 'enfant', 'adulte', 'sujet', 'âgé', 'dose', 'durée', 'surveillance', 'bilan', 'imagerie', 'antibiotique', 'antalgique', 'anticoagulant', 'diurétique', 'insuline', 'vaccin', 'infection', 'inflammation', 'traitement', 'prévention'];

/** A deterministic pseudo-random sequence (the same content on every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

export function generatePlan(mkus: number): ContentPlan {
  const rand = rng(mkus);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  const nConcepts = Math.max(20, Math.round(mkus / 50));
  const concepts = Array.from({ length: nConcepts }, (_, i) => {
    const label = `${pick()} ${pick()} c${i}`;
    return { node: { id: `c${i}`, label, source: 'local', synonyms: [], kind: 'other' as const }, embedText: label };
  });
  const nDocs = Math.max(1, Math.round(mkus / 100));
  const documents = Array.from({ length: nDocs }, (_, i) => ({ doc_id: `d${i}`, title: `Document ${i}`, url: null, year: 2020, reco_id: String(i), source_id: 1, summary: 'Résumé.', license: 'bench', lang: 'fr' }));
  const sections = documents.map((d) => ({ id: `s_${d.doc_id}`, doc_id: d.doc_id, titles: ['Section'], pages: ['1'], summary: null }));
  const chunks: ContentPlan['chunks'] = [];
  const plan: ContentPlan['mkus'] = [];
  const edges: ContentPlan['edges'] = [];
  for (let i = 0; i < mkus; i++) {
    // Four MKUs share a chunk, so they share its document too (an MKU filed under another document than its
    // chunk's is pruned by the loader as no longer in that document: three in four were, before).
    const doc = documents[Math.floor(i / 4) % nDocs].doc_id;
    const cs = [Math.floor(rand() * nConcepts), Math.floor(rand() * nConcepts)];
    const verbatim = `Règle ${i} : ${concepts[cs[0]].node.label} ${Array.from({ length: 12 }, pick).join(' ')} ${concepts[cs[1]].node.label}.`;
    if (i % 4 === 0) chunks.push({ node: { chunk_id: `k${i}`, section_id: `s_${doc}`, text: verbatim, page: '1' }, embedText: verbatim });
    const id = mkuId(doc, verbatim);
    const node = { id, verbatim, criteria: 'SI', directive: 'ALORS', mku_class: null, population: [], safety_critical: i % 97 === 0, reviewed: true, evidence_grade: null, strength: null, lang: 'fr', content_hash: contentHash({ verbatim }), chunk_id: `k${i - (i % 4)}` };
    plan.push({ node, docId: doc, embedText: verbatim });
    for (const c of new Set(cs)) edges.push({ src: `c${c}`, rel: 'TRIGGERS', dst: id, props: { role: 'criteria', weight: 1 } });
  }
  for (let c = 1; c < nConcepts; c += 3) edges.push({ src: `c${c}`, rel: 'RELATED', dst: `c${c - 1}`, props: {} });
  return { sources: [{ source_id: 1, name: 'BENCH', org: 'Bench' }], documents, sections, chunks, mkus: plan, concepts, edges };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export interface EngineRow {
  engine: string;
  mkus: number;
  loadMs: number;
  contextP50: number;
  contextP99: number;
  knnP50: number;
  graphP50: number;
}

const embedder = createEmbedder();

/** One measuring pass over a loaded store: `before` runs first (its time counts as load time). */
interface Phase {
  engine: string;
  before?: () => Promise<void>;
}

async function sample(store: KnowledgeStore, plan: ContentPlan, queries: number) {
  const rand = rng(7);
  const deps = { store, embedder, policy: { allowUnreviewed: false, model: null } };
  const context: number[] = [];
  const knn: number[] = [];
  const graph: number[] = [];
  for (let i = 0; i < queries + 3; i++) {
    const a = plan.concepts[Math.floor(rand() * plan.concepts.length)].node;
    const b = plan.concepts[Math.floor(rand() * plan.concepts.length)].node;
    const query = `Que faire pour ${a.label} ?`;
    const [vec] = await embedder.embed([query]);
    const s0 = performance.now();
    await runContext(deps, { query, patient_ehr: { active_problems: [b.label] } });
    const s1 = performance.now();
    await store.vectorMkus(vec, 12);
    const s2 = performance.now();
    await store.mkusByConcepts([a.id, b.id], 1);
    const s3 = performance.now();
    // The first rounds warm statement caches and the JIT.
    if (i < 3) continue;
    context.push(s1 - s0);
    knn.push(s2 - s1);
    graph.push(s3 - s2);
  }
  return { contextP50: quantile(context, 0.5), contextP99: quantile(context, 0.99), knnP50: quantile(knn, 0.5), graphP50: quantile(graph, 0.5) };
}

async function measure(open: () => Promise<KnowledgeStore>, plan: ContentPlan, queries: number, phases: Phase[]): Promise<EngineRow[]> {
  const store = await open();
  try {
    const t0 = performance.now();
    await writePlan(store, embedder, plan);
    let loadMs = performance.now() - t0;
    const held = (await store.counts()).mkus;
    if (held !== plan.mkus.length) throw new Error(`${phases[0].engine}: the store holds ${held} MKUs after loading ${plan.mkus.length}`);
    const rows: EngineRow[] = [];
    for (const phase of phases) {
      const t1 = performance.now();
      await phase.before?.();
      loadMs += performance.now() - t1;
      rows.push({ engine: phase.engine, mkus: plan.mkus.length, loadMs, ...(await sample(store, plan, queries)) });
    }
    return rows;
  } finally {
    await store.close();
  }
}

/**
 * The PostgreSQL server's two states: just loaded (no planner statistics yet, as PGlite always is) and after
 * ANALYZE (what autovacuum leaves a minute or so later).
 */
async function measureServer(version: string, plan: ContentPlan, queries: number): Promise<EngineRow[]> {
  let url = '';
  const analyze = async () => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('ANALYZE');
    } finally {
      await client.end();
    }
  };
  return measure(() => openRealPostgresStore((db) => (url = db.url)), plan, queries, [
    { engine: `postgres ${version} (server, just loaded)` },
    { engine: `postgres ${version} (server, analysed)`, before: analyze },
  ]);
}

export async function runKnowledgeBench(opts: { sizes?: number[]; queries?: number; postgresUpTo?: number } = {}): Promise<EngineRow[]> {
  const rows: EngineRow[] = [];
  const server = postgresLookup();
  if (!server.found) process.stderr.write(`knowledge bench: no PostgreSQL server rows: ${server.reason}; to add them, ${INSTALL_HINT}\n`);
  for (const n of opts.sizes ?? [5000, 50000]) {
    const plan = generatePlan(n);
    const queries = opts.queries ?? 100;
    rows.push(...(await measure(async () => openMemorySqliteStore('brute-force'), plan, queries, [{ engine: 'sqlite brute-force (baseline)' }])));
    rows.push(...(await measure(async () => openMemorySqliteStore('sqlite-vec'), plan, queries, [{ engine: 'sqlite + sqlite-vec' }])));
    if (n <= (opts.postgresUpTo ?? 5000)) rows.push(...(await measure(openPgliteStore, plan, queries, [{ engine: 'postgres (PGlite + pgvector)' }])));
    if (server.found) rows.push(...(await measureServer(/PostgreSQL ([\d.]+)/.exec(server.install.version)?.[1] ?? '', plan, queries)));
  }
  writeResult('knowledge', { rows });
  return rows;
}

const ms = (x: number) => `${x.toFixed(2)} ms`;

export function formatKnowledgeBench(rows: EngineRow[]): string {
  const lines = ['knowledge: /v2/context pipeline and store query time (in process, hash embedder), ratio = engine / brute-force baseline at the same size'];
  for (const r of rows) {
    const base = rows.find((b) => b.mkus === r.mkus && b.engine.startsWith('sqlite brute-force'))!;
    lines.push(
      `  ${String(r.mkus).padStart(6)} MKUs  ${r.engine.padEnd(40)} load ${(r.loadMs / 1000).toFixed(1)} s  context p50 ${ms(r.contextP50)} p99 ${ms(r.contextP99)} (×${(r.contextP50 / base.contextP50).toFixed(2)})  knn p50 ${ms(r.knnP50)} (×${(r.knnP50 / base.knnP50).toFixed(2)})  graph p50 ${ms(r.graphP50)}`,
    );
  }
  return lines.join('\n');
}

if (require.main === module) {
  const full = process.argv.includes('--full');
  runAsMain('knowledge', () => runKnowledgeBench({ postgresUpTo: full ? 50000 : 5000 }), formatKnowledgeBench);
}
