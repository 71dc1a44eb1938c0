/**
 * The scale-out store: PostgreSQL + pgvector (HNSW, cosine), `tsvector` French + `unaccent`, recursive CTEs,
 * over the SqlClient interface (pg.Pool in production, PGlite in tests). Returns the KnowledgeStore port.
 */
import type { CrossRefRow, Knn, ProvenanceRow, StoreDriver, TriggerRow } from '../driver';
import type { ConceptKind, ContentBatch, IndexInfo, KnowledgeStore, Mku, StoreCounts, Concept } from '../port';
import { createStoreOverDriver } from '../reads';
import { vectorLiteral } from '../row-hash';
import { createSchema, ensureVectorTables, PG_VECTOR_TABLES } from './schema';
import type { SqlClient } from './sql-client';
import { pruneMkus, writeBatch } from './postgres-writes';

const MKU_COLUMNS = 'id, verbatim, criteria, directive, mku_class, population, safety_critical, reviewed, evidence_grade, strength, lang, content_hash, chunk_id';
const CONCEPT_COLUMNS = 'id, label, source, synonyms, kind';
const IDS = 'SELECT jsonb_array_elements_text($1::jsonb)';

const TRIGGERS_SQL = `
WITH RECURSIVE
  cg(a, b) AS (SELECT src, dst FROM edges WHERE rel IN ('RELATED', 'BROADER')
               UNION ALL SELECT dst, src FROM edges WHERE rel IN ('RELATED', 'BROADER')),
  reach(concept, seed, hops) AS (
    SELECT x, x, 0 FROM jsonb_array_elements_text($1::jsonb) AS s(x)
    UNION
    SELECT cg.b, r.seed, r.hops + 1 FROM reach r JOIN cg ON cg.a = r.concept WHERE r.hops < $2::int)
SELECT r.seed AS seed, MIN(r.hops)::int AS hops, t.dst AS mku_id, t.props_json AS props_json
FROM reach r JOIN edges t ON t.src = r.concept AND t.rel = 'TRIGGERS'
GROUP BY r.seed, t.src, t.dst, t.props_json`;

// LINEAGE edges are neither walked nor returned.
const CROSS_REF_SQL = `
WITH RECURSIVE
  xr(a, b) AS (SELECT src, dst FROM edges WHERE rel = 'CROSS_REF' AND props_json->>'stance' IS DISTINCT FROM 'LINEAGE'
               UNION ALL SELECT dst, src FROM edges WHERE rel = 'CROSS_REF' AND props_json->>'stance' IS DISTINCT FROM 'LINEAGE'),
  walk(node, hops) AS (
    SELECT x, 0 FROM jsonb_array_elements_text($1::jsonb) AS s(x)
    UNION
    SELECT xr.b, w.hops + 1 FROM walk w JOIN xr ON xr.a = w.node WHERE w.hops + 1 < $2::int)
SELECT e.src AS src, e.dst AS dst, e.props_json AS props_json, (MIN(w.hops) + 1)::int AS hops
FROM walk w JOIN edges e ON e.rel = 'CROSS_REF' AND (e.src = w.node OR e.dst = w.node)
WHERE e.props_json->>'stance' IS DISTINCT FROM 'LINEAGE'
GROUP BY e.src, e.dst, e.props_json`;

const PROVENANCE_SQL = `
SELECT m.id AS mku_id, d.doc_id, d.title AS doc_title, d.url AS doc_url, d.reco_id, d.year, d.license, d.summary AS doc_summary, src.source_id AS source_id,
       COALESCE(src.name, '') AS source_name, COALESCE(src.org, '') AS source_org,
       s.titles AS section_titles, s.pages AS section_pages, s.summary AS section_summary, c.page AS chunk_page
FROM mkus m JOIN chunks c ON c.chunk_id = m.chunk_id JOIN sections s ON s.id = c.section_id
JOIN documents d ON d.doc_id = s.doc_id LEFT JOIN sources src ON src.source_id = d.source_id
WHERE m.id IN (${IDS})`;

/**
 * Full-text candidates, best rank first. Ties are cut by id in byte order (`COLLATE "C"`), the order the shared
 * re-scoring uses, so which candidates pass the limit does not depend on the database's collation (a `fr-FR`
 * database sorts `Z-1` after `z_2`; PGlite and C-collated databases the other way round).
 */
const BY_RANK = 'ORDER BY ts_rank(tsv, q) DESC, id COLLATE "C"';

const toConcept = (r: Concept & { kind: string }): Concept => ({ id: r.id, label: r.label, source: r.source, synonyms: r.synonyms, kind: r.kind as ConceptKind });

/** Folded terms OR-ed into a tsquery; the terms are letters and digits only, so no query syntax gets through. */
const tsQuery = (terms: string[]) => terms.join(' | ');

class PostgresDriver implements StoreDriver {
  readonly engine = 'postgres' as const;
  constructor(private readonly db: SqlClient, private info: IndexInfo | null) {}

  async conceptCandidates(terms: string[], limit: number) {
    const { rows } = await this.db.query<Concept>(
      `SELECT ${CONCEPT_COLUMNS} FROM concepts, to_tsquery('french', unaccent($1)) q WHERE tsv @@ q ${BY_RANK} LIMIT $2`,
      [tsQuery(terms), limit],
    );
    return rows.map(toConcept);
  }

  async mkuCandidates(terms: string[], limit: number) {
    const { rows } = await this.db.query<Mku>(
      `SELECT ${MKU_COLUMNS} FROM mkus, to_tsquery('french', unaccent($1)) q WHERE tsv @@ q ${BY_RANK} LIMIT $2`,
      [tsQuery(terms), limit],
    );
    return rows;
  }

  async knn(kind: 'mku' | 'chunk' | 'concept', vec: Float32Array, k: number): Promise<Knn[]> {
    if (!this.info) return [];
    if (vec.length !== this.info.dimension) throw new Error(`knowledge store: query vector has ${vec.length} dimensions, the index has ${this.info.dimension}`);
    const t = PG_VECTOR_TABLES[kind];
    // HNSW returns at most ef_search rows: widen it to k for this query only.
    return this.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, Math.floor(k)))}`);
      const { rows } = await tx.query<{ id: string; similarity: number }>(
        `SELECT id, 1 - (embedding <=> $1::vector) AS similarity FROM ${t.vec} ORDER BY embedding <=> $1::vector LIMIT $2`,
        [vectorLiteral(vec), k],
      );
      return rows.map((r) => ({ id: r.id, similarity: Number(r.similarity) }));
    });
  }

  async triggerRows(seeds: string[], depth: number): Promise<TriggerRow[]> {
    const { rows } = await this.db.query<{ seed: string; hops: number; mku_id: string; props_json: Record<string, unknown> }>(TRIGGERS_SQL, [JSON.stringify(seeds), depth]);
    return rows.map((r) => ({ seed: r.seed, hops: r.hops, mku_id: r.mku_id, props: r.props_json }));
  }

  async crossRefRows(mkuIds: string[], maxHops: number): Promise<CrossRefRow[]> {
    const { rows } = await this.db.query<{ src: string; dst: string; props_json: Record<string, unknown>; hops: number }>(CROSS_REF_SQL, [JSON.stringify(mkuIds), maxHops]);
    return rows.map((r) => ({ src: r.src, dst: r.dst, hops: r.hops, props: r.props_json }));
  }

  async mkus(ids: string[]) {
    if (ids.length === 0) return [];
    return (await this.db.query<Mku>(`SELECT ${MKU_COLUMNS} FROM mkus WHERE id IN (${IDS})`, [JSON.stringify(ids)])).rows;
  }

  async concepts(ids: string[]) {
    if (ids.length === 0) return [];
    return (await this.db.query<Concept>(`SELECT ${CONCEPT_COLUMNS} FROM concepts WHERE id IN (${IDS})`, [JSON.stringify(ids)])).rows.map(toConcept);
  }

  async chunks(ids: string[]) {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<{ chunk_id: string; section_id: string; text: string; page: string | null }>(
      `SELECT chunk_id, section_id, text, page FROM chunks WHERE chunk_id IN (${IDS})`, [JSON.stringify(ids)]);
    return rows;
  }

  async provenanceRows(mkuIds: string[]) {
    return (await this.db.query<ProvenanceRow>(PROVENANCE_SQL, [JSON.stringify(mkuIds)])).rows;
  }

  async write(batch: ContentBatch) {
    return { changed: await writeBatch(this.db, batch, this.info) };
  }

  pruneMkus(docId: string, keep: string[]) {
    return pruneMkus(this.db, docId, keep);
  }

  async indexInfo() {
    return this.info ? { ...this.info } : null;
  }

  async setIndexInfo(info: IndexInfo) {
    if (this.info && this.info.dimension !== info.dimension) {
      const c = await this.counts();
      const n = c.chunks + c.mkus + c.concepts;
      if (n > 0) throw new Error(`knowledge store: cannot change the index dimension from ${this.info.dimension} to ${info.dimension} while it holds ${n} vectors`);
    }
    const clean = { embedder_id: info.embedder_id, dimension: info.dimension };
    await this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO meta (key, value) VALUES ('index_info', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [JSON.stringify(clean)]);
      await ensureVectorTables(tx, clean.dimension);
    });
    this.info = clean;
  }

  async counts(): Promise<StoreCounts> {
    const { rows } = await this.db.query<StoreCounts>(`SELECT
      (SELECT COUNT(*) FROM sources)::int AS sources, (SELECT COUNT(*) FROM documents)::int AS documents,
      (SELECT COUNT(*) FROM sections)::int AS sections, (SELECT COUNT(*) FROM chunks)::int AS chunks,
      (SELECT COUNT(*) FROM mkus)::int AS mkus, (SELECT COUNT(*) FROM concepts)::int AS concepts,
      (SELECT COUNT(*) FROM edges)::int AS edges`);
    return { ...rows[0] };
  }

  close() {
    return this.db.close();
  }
}

/** Creates the schema if needed and returns the store; `close()` closes the client. */
export async function openPostgresStore(db: SqlClient): Promise<KnowledgeStore> {
  await createSchema(db);
  const { rows } = await db.query<{ value: string }>("SELECT value FROM meta WHERE key = 'index_info'");
  const info = rows[0] ? (JSON.parse(rows[0].value) as IndexInfo) : null;
  if (info) await ensureVectorTables(db, info.dimension);
  return createStoreOverDriver(new PostgresDriver(db, info));
}
