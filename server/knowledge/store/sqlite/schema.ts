/**
 * SQLite schema (knowledge-layer.md §6.2): node tables keyed by stable string ids (with an integer `rid` for the
 * FTS5 and vec0 rowids), `edges(src, rel, dst, props_json)` indexed both ways, FTS5 tables with
 * `unicode61 remove_diacritics 2` (accent- and case-insensitive), and each row's content hash.
 */
import type Database from 'better-sqlite3';

const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (source_id INTEGER PRIMARY KEY, name TEXT NOT NULL, org TEXT NOT NULL, row_hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
  doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, url TEXT, year INTEGER, reco_id TEXT, source_id INTEGER NOT NULL,
  summary TEXT, license TEXT, lang TEXT NOT NULL, row_hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sections (
  id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, titles_json TEXT NOT NULL, pages_json TEXT NOT NULL, summary TEXT, row_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sections_doc ON sections (doc_id);
CREATE TABLE IF NOT EXISTS chunks (
  rid INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE, section_id TEXT NOT NULL, text TEXT NOT NULL, page TEXT,
  embedding BLOB NOT NULL, row_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_section ON chunks (section_id);
CREATE TABLE IF NOT EXISTS mkus (
  rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, verbatim TEXT NOT NULL, criteria TEXT NOT NULL, directive TEXT NOT NULL,
  mku_class TEXT, population_json TEXT NOT NULL, safety_critical INTEGER NOT NULL, reviewed INTEGER NOT NULL,
  evidence_grade TEXT, strength TEXT, lang TEXT NOT NULL, content_hash TEXT NOT NULL, chunk_id TEXT NOT NULL,
  embedding BLOB NOT NULL, row_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS mkus_chunk ON mkus (chunk_id);
CREATE TABLE IF NOT EXISTS concepts (
  rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, label TEXT NOT NULL, source TEXT NOT NULL, synonyms_json TEXT NOT NULL,
  kind TEXT NOT NULL, embedding BLOB NOT NULL, row_hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS edges (src TEXT NOT NULL, rel TEXT NOT NULL, dst TEXT NOT NULL, props_json TEXT NOT NULL,
  PRIMARY KEY (src, rel, dst)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst, rel);
CREATE INDEX IF NOT EXISTS edges_rel ON edges (rel);
CREATE VIRTUAL TABLE IF NOT EXISTS mku_fts USING fts5(verbatim, tokenize="unicode61 remove_diacritics 2");
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(text, tokenize="unicode61 remove_diacritics 2");
CREATE VIRTUAL TABLE IF NOT EXISTS concept_fts USING fts5(names, tokenize="unicode61 remove_diacritics 2");
`;

export function createSchema(db: Database.Database): void {
  db.exec(DDL);
}

/** The three vector kinds: node table, vec0 table, id column. */
export const VECTOR_TABLES = {
  mku: { table: 'mkus', vec: 'mku_vec', id: 'id' },
  chunk: { table: 'chunks', vec: 'chunk_vec', id: 'chunk_id' },
  concept: { table: 'concepts', vec: 'concept_vec', id: 'id' },
} as const;

export type VectorKind = keyof typeof VECTOR_TABLES;
