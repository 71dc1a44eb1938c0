/**
 * PostgreSQL schema: the SQLite model (knowledge-layer.md §6.2) with `tsvector` columns built with the `french`
 * configuration over `unaccent(text)` (GIN-indexed), jsonb lists, and per-kind `vector(n)` tables with HNSW
 * (`vector_cosine_ops`) created once the dimension is known (`ensureVectorTables`).
 */
import type { SqlClient } from './sql-client';

const DDL = [
  'CREATE EXTENSION IF NOT EXISTS vector',
  'CREATE EXTENSION IF NOT EXISTS unaccent',
  'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS sources (source_id INTEGER PRIMARY KEY, name TEXT NOT NULL, org TEXT NOT NULL, row_hash TEXT NOT NULL)',
  `CREATE TABLE IF NOT EXISTS documents (doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, url TEXT, year INTEGER, reco_id TEXT,
     source_id INTEGER NOT NULL, summary TEXT, license TEXT, lang TEXT NOT NULL, row_hash TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS sections (id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, titles JSONB NOT NULL, pages JSONB NOT NULL,
     summary TEXT, row_hash TEXT NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS sections_doc ON sections (doc_id)',
  `CREATE TABLE IF NOT EXISTS chunks (chunk_id TEXT PRIMARY KEY, section_id TEXT NOT NULL, text TEXT NOT NULL, page TEXT,
     tsv TSVECTOR NOT NULL, row_hash TEXT NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS chunks_section ON chunks (section_id)',
  'CREATE INDEX IF NOT EXISTS chunks_tsv ON chunks USING gin (tsv)',
  `CREATE TABLE IF NOT EXISTS mkus (id TEXT PRIMARY KEY, verbatim TEXT NOT NULL, criteria TEXT NOT NULL, directive TEXT NOT NULL,
     mku_class TEXT, population JSONB NOT NULL, safety_critical BOOLEAN NOT NULL, reviewed BOOLEAN NOT NULL, evidence_grade TEXT,
     strength TEXT, lang TEXT NOT NULL, content_hash TEXT NOT NULL, chunk_id TEXT NOT NULL, tsv TSVECTOR NOT NULL, row_hash TEXT NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS mkus_chunk ON mkus (chunk_id)',
  'CREATE INDEX IF NOT EXISTS mkus_tsv ON mkus USING gin (tsv)',
  `CREATE TABLE IF NOT EXISTS concepts (id TEXT PRIMARY KEY, label TEXT NOT NULL, source TEXT NOT NULL, synonyms JSONB NOT NULL,
     kind TEXT NOT NULL, tsv TSVECTOR NOT NULL, row_hash TEXT NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS concepts_tsv ON concepts USING gin (tsv)',
  `CREATE TABLE IF NOT EXISTS edges (src TEXT NOT NULL, rel TEXT NOT NULL, dst TEXT NOT NULL, props_json JSONB NOT NULL,
     PRIMARY KEY (src, rel, dst))`,
  'CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst, rel)',
  'CREATE INDEX IF NOT EXISTS edges_rel ON edges (rel)',
];

export async function createSchema(db: SqlClient): Promise<void> {
  for (const stmt of DDL) await db.query(stmt);
}

export const PG_VECTOR_TABLES = {
  mku: { vec: 'mku_vec', node: 'mkus', id: 'id' },
  chunk: { vec: 'chunk_vec', node: 'chunks', id: 'chunk_id' },
  concept: { vec: 'concept_vec', node: 'concepts', id: 'id' },
} as const;

/** Creates the vector tables for `dimension`, re-creating any of another size (the caller checked they are empty). */
export async function ensureVectorTables(db: Pick<SqlClient, 'query'>, dimension: number): Promise<void> {
  for (const t of Object.values(PG_VECTOR_TABLES)) {
    const { rows } = await db.query<{ typ: string }>(
      `SELECT format_type(a.atttypid, a.atttypmod) AS typ FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attname = 'embedding'`,
      [t.vec],
    );
    if (rows[0]?.typ === `vector(${dimension})`) continue;
    await db.query(`DROP TABLE IF EXISTS ${t.vec}`);
    await db.query(`CREATE TABLE ${t.vec} (id TEXT PRIMARY KEY, embedding vector(${dimension}) NOT NULL)`);
    await db.query(`CREATE INDEX ${t.vec}_hnsw ON ${t.vec} USING hnsw (embedding vector_cosine_ops)`);
  }
}
