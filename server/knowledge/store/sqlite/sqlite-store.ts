/**
 * The embedded default store: better-sqlite3 + FTS5 + sqlite-vec (or brute-force cosine), the graph walked by
 * `WITH RECURSIVE`. `openSqliteStore` returns the KnowledgeStore port (scores and filters live in reads.ts).
 */
import fs from 'node:fs';
import { Statements } from './statements';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { CrossRefRow, ProvenanceRow, StoreDriver, TriggerRow } from '../driver';
import type { IndexInfo, KnowledgeStore, StoreCounts } from '../port';
import { createStoreOverDriver } from '../reads';
import { CONCEPT_COLUMNS, type ConceptRow, ftsMatch, MKU_COLUMNS, type MkuRow, toChunk, toConcept, toMku } from './rows';
import { createSchema } from './schema';
import { SqliteWriter } from './sqlite-writes';
import { openVectorIndex, type VectorEngineChoice, type VectorIndex } from './vectors';

export type { VectorEngineChoice } from './vectors';

export interface SqliteStoreOptions {
  vectors?: VectorEngineChoice;
}

/** The port plus which vector path is live (reported by tests and the trace). */
export type SqliteKnowledgeStore = KnowledgeStore & { readonly vectorEngine: 'sqlite-vec' | 'brute-force' };

// CROSS JOIN fixes the join order (reach first, then the (src, rel) index): the planner otherwise scans every
// TRIGGERS edge per call, a fixed cost that grows with the knowledge base. Same rows either way.
export const TRIGGERS_SQL = `
WITH RECURSIVE
  cg(a, b) AS (SELECT src, dst FROM edges WHERE rel IN ('RELATED', 'BROADER')
               UNION ALL SELECT dst, src FROM edges WHERE rel IN ('RELATED', 'BROADER')),
  reach(concept, seed, hops) AS (
    SELECT value, value, 0 FROM json_each(?)
    UNION
    SELECT cg.b, r.seed, r.hops + 1 FROM reach r JOIN cg ON cg.a = r.concept WHERE r.hops < ?)
SELECT r.seed AS seed, MIN(r.hops) AS hops, t.dst AS mku_id, t.props_json AS props_json
FROM reach r CROSS JOIN edges t ON t.src = r.concept AND t.rel = 'TRIGGERS'
GROUP BY r.seed, t.src, t.dst`;

// LINEAGE edges are neither walked nor returned.
const CROSS_REF_SQL = `
WITH RECURSIVE
  xr(a, b) AS (SELECT src, dst FROM edges WHERE rel = 'CROSS_REF' AND json_extract(props_json, '$.stance') IS NOT 'LINEAGE'
               UNION ALL SELECT dst, src FROM edges WHERE rel = 'CROSS_REF' AND json_extract(props_json, '$.stance') IS NOT 'LINEAGE'),
  walk(node, hops) AS (
    SELECT value, 0 FROM json_each(?)
    UNION
    SELECT xr.b, w.hops + 1 FROM walk w JOIN xr ON xr.a = w.node WHERE w.hops + 1 < ?)
SELECT e.src AS src, e.dst AS dst, e.props_json AS props_json, MIN(w.hops) + 1 AS hops
FROM walk w JOIN edges e ON e.rel = 'CROSS_REF' AND (e.src = w.node OR e.dst = w.node)
WHERE json_extract(e.props_json, '$.stance') IS NOT 'LINEAGE'
GROUP BY e.src, e.dst`;

const PROVENANCE_SQL = `
SELECT m.id AS mku_id, d.doc_id, d.title AS doc_title, d.url AS doc_url, d.reco_id, d.year, d.license, d.summary AS doc_summary, src.source_id AS source_id,
       COALESCE(src.name, '') AS source_name, COALESCE(src.org, '') AS source_org,
       s.titles_json, s.pages_json, s.summary AS section_summary, c.page AS chunk_page
FROM mkus m JOIN chunks c ON c.chunk_id = m.chunk_id JOIN sections s ON s.id = c.section_id
JOIN documents d ON d.doc_id = s.doc_id LEFT JOIN sources src ON src.source_id = d.source_id
WHERE m.id IN (SELECT value FROM json_each(?))`;

class SqliteDriver implements StoreDriver {
  readonly engine = 'sqlite' as const;
  private readonly writer: SqliteWriter;
  private info: IndexInfo | null;

  private readonly sql: Statements;

  constructor(private readonly db: Database.Database, readonly vectors: VectorIndex) {
    this.sql = new Statements(db);
    const row = db.prepare("SELECT value FROM meta WHERE key = 'index_info'").get() as { value: string } | undefined;
    this.info = row ? (JSON.parse(row.value) as IndexInfo) : null;
    if (this.info) vectors.ensure(this.info.dimension);
    this.writer = new SqliteWriter(db, vectors, () => this.info);
  }

  async conceptCandidates(terms: string[], limit: number) {
    const rows = this.sql
      .get(`SELECT ${CONCEPT_COLUMNS.split(', ').map((c) => `c.${c}`).join(', ')} FROM concept_fts f JOIN concepts c ON c.rid = f.rowid WHERE concept_fts MATCH ? ORDER BY f.rank LIMIT ?`)
      .all(ftsMatch(terms), limit) as ConceptRow[];
    return rows.map(toConcept);
  }

  async mkuCandidates(terms: string[], limit: number) {
    const rows = this.sql
      .get(`SELECT ${MKU_COLUMNS.split(', ').map((c) => `m.${c}`).join(', ')} FROM mku_fts f JOIN mkus m ON m.rid = f.rowid WHERE mku_fts MATCH ? ORDER BY f.rank LIMIT ?`)
      .all(ftsMatch(terms), limit) as MkuRow[];
    return rows.map(toMku);
  }

  async knn(kind: 'mku' | 'chunk' | 'concept', vec: Float32Array, k: number) {
    if (this.info && vec.length !== this.info.dimension) {
      throw new Error(`knowledge store: query vector has ${vec.length} dimensions, the index has ${this.info.dimension}`);
    }
    return this.vectors.knn(kind, vec, k);
  }

  async triggerRows(seeds: string[], depth: number): Promise<TriggerRow[]> {
    const rows = this.sql.get(TRIGGERS_SQL).all(JSON.stringify(seeds), depth) as Array<{ seed: string; hops: number; mku_id: string; props_json: string }>;
    return rows.map((r) => ({ seed: r.seed, hops: r.hops, mku_id: r.mku_id, props: JSON.parse(r.props_json) as Record<string, unknown> }));
  }

  async crossRefRows(mkuIds: string[], maxHops: number): Promise<CrossRefRow[]> {
    const rows = this.sql.get(CROSS_REF_SQL).all(JSON.stringify(mkuIds), maxHops) as Array<{ src: string; dst: string; props_json: string; hops: number }>;
    return rows.map((r) => ({ src: r.src, dst: r.dst, hops: r.hops, props: JSON.parse(r.props_json) as Record<string, unknown> }));
  }

  async mkus(ids: string[]) {
    if (ids.length === 0) return [];
    return (this.sql.get(`SELECT ${MKU_COLUMNS} FROM mkus WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as MkuRow[]).map(toMku);
  }

  async concepts(ids: string[]) {
    if (ids.length === 0) return [];
    return (this.sql.get(`SELECT ${CONCEPT_COLUMNS} FROM concepts WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as ConceptRow[]).map(toConcept);
  }

  async chunks(ids: string[]) {
    if (ids.length === 0) return [];
    const rows = this.sql.get('SELECT chunk_id, section_id, text, page FROM chunks WHERE chunk_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids));
    return (rows as Array<{ chunk_id: string; section_id: string; text: string; page: string | null }>).map(toChunk);
  }

  async provenanceRows(mkuIds: string[]): Promise<ProvenanceRow[]> {
    const rows = this.sql.get(PROVENANCE_SQL).all(JSON.stringify(mkuIds)) as Array<Omit<ProvenanceRow, 'section_titles' | 'section_pages'> & { titles_json: string; pages_json: string }>;
    return rows.map(({ titles_json, pages_json, ...r }) => ({ ...r, section_titles: JSON.parse(titles_json) as string[], section_pages: JSON.parse(pages_json) as string[] }));
  }

  async write(batch: Parameters<StoreDriver['write']>[0]) {
    return { changed: this.writer.write(batch) };
  }

  async pruneMkus(docId: string, keep: string[]) {
    return this.writer.pruneMkus(docId, keep);
  }

  async indexInfo() {
    return this.info ? { ...this.info } : null;
  }

  async setIndexInfo(info: IndexInfo) {
    if (this.info && this.info.dimension !== info.dimension) {
      const n = (this.db.prepare('SELECT (SELECT COUNT(*) FROM mkus) + (SELECT COUNT(*) FROM chunks) + (SELECT COUNT(*) FROM concepts) AS n').get() as { n: number }).n;
      if (n > 0) throw new Error(`knowledge store: cannot change the index dimension from ${this.info.dimension} to ${info.dimension} while it holds ${n} vectors`);
    }
    this.db.transaction(() => {
      this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('index_info', ?)").run(JSON.stringify({ embedder_id: info.embedder_id, dimension: info.dimension }));
      this.vectors.ensure(info.dimension);
    })();
    this.info = { embedder_id: info.embedder_id, dimension: info.dimension };
  }

  async counts(): Promise<StoreCounts> {
    const n = (t: string) => (this.db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { sources: n('sources'), documents: n('documents'), sections: n('sections'), chunks: n('chunks'), mkus: n('mkus'), concepts: n('concepts'), edges: n('edges') };
  }

  async close() {
    if (this.db.open) this.db.close();
  }
}

export function openSqliteStore(dbPath: string, opts: SqliteStoreOptions = {}): SqliteKnowledgeStore {
  if (dbPath !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = new Database(dbPath);
  if (dbPath !== ':memory:') db.pragma('journal_mode = WAL');
  createSchema(db);
  const vectors = openVectorIndex(db, opts.vectors ?? 'auto');
  const store = createStoreOverDriver(new SqliteDriver(db, vectors));
  return Object.assign(store, { vectorEngine: vectors.engine });
}
