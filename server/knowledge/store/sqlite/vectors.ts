/**
 * Vector KNN for the SQLite store: sqlite-vec `vec0` tables (cosine) when the extension loads, else a plain
 * TypeScript brute-force cosine over the embeddings kept in the node tables (fast enough below ~20k MKUs,
 * knowledge-layer.md §6.7). Node tables always keep the embedding, so either path answers the same.
 */
import type Database from 'better-sqlite3';
import { Statements } from './statements';
import { bufferToVector, cosine, vectorToBuffer } from '../row-hash';
import type { Knn } from '../driver';
import { VECTOR_TABLES, type VectorKind } from './schema';

export type VectorEngineChoice = 'auto' | 'sqlite-vec' | 'brute-force';

export interface VectorIndex {
  readonly engine: 'sqlite-vec' | 'brute-force';
  /** Creates (or, when empty and of another size, re-creates) the index tables for `dimension`. */
  ensure(dimension: number): void;
  upsert(kind: VectorKind, rid: number, vec: Float32Array): void;
  remove(kind: VectorKind, rid: number): void;
  knn(kind: VectorKind, vec: Float32Array, k: number): Knn[];
}

/** Loads sqlite-vec into `db`; returns false (never throws) when `auto` and it cannot load. */
function loadSqliteVec(db: Database.Database, choice: VectorEngineChoice): boolean {
  if (choice === 'brute-force') return false;
  try {
    (require('sqlite-vec') as { load(db: Database.Database): void }).load(db);
    return true;
  } catch (err) {
    if (choice === 'sqlite-vec') throw new Error(`sqlite-vec could not be loaded: ${(err as Error).message}`);
    return false;
  }
}

export function openVectorIndex(db: Database.Database, choice: VectorEngineChoice): VectorIndex {
  return loadSqliteVec(db, choice) ? new Vec0Index(db) : new BruteForceIndex(db);
}

class BruteForceIndex implements VectorIndex {
  readonly engine = 'brute-force' as const;
  // Decoded vectors per kind, dropped on any write of that kind: queries then scan memory, not BLOBs.
  private readonly cache = new Map<VectorKind, Array<{ id: string; vec: Float32Array }>>();
  constructor(private readonly db: Database.Database) {}
  ensure(): void {}
  upsert(kind: VectorKind): void {
    this.cache.delete(kind);
  }
  remove(kind: VectorKind): void {
    this.cache.delete(kind);
  }
  private rows(kind: VectorKind): Array<{ id: string; vec: Float32Array }> {
    let rows = this.cache.get(kind);
    if (!rows) {
      const t = VECTOR_TABLES[kind];
      const raw = this.db.prepare(`SELECT ${t.id} AS id, embedding FROM ${t.table}`).all() as Array<{ id: string; embedding: Buffer }>;
      rows = raw.map((r) => ({ id: r.id, vec: bufferToVector(r.embedding) }));
      this.cache.set(kind, rows);
    }
    return rows;
  }
  knn(kind: VectorKind, vec: Float32Array, k: number): Knn[] {
    return this.rows(kind)
      .map((r) => ({ id: r.id, similarity: cosine(vec, r.vec) }))
      .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
      .slice(0, k);
  }
}

class Vec0Index implements VectorIndex {
  readonly engine = 'sqlite-vec' as const;
  private readonly sql: Statements;
  /** Vector tables seen to exist (they are only ever created, never dropped, while the store is open). */
  private readonly present = new Set<string>();
  constructor(private readonly db: Database.Database) {
    this.sql = new Statements(db);
  }

  ensure(dimension: number): void {
    for (const t of Object.values(VECTOR_TABLES)) {
      const existing = this.db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(t.vec) as { sql: string } | undefined;
      if (existing && existing.sql.includes(`float[${dimension}]`) && this.count(t.vec) === this.count(t.table)) continue;
      if (existing) this.db.exec(`DROP TABLE ${t.vec}`);
      this.db.exec(`CREATE VIRTUAL TABLE ${t.vec} USING vec0(embedding float[${dimension}] distance_metric=cosine)`);
      // Rebuild from the node table: the file may have been written while sqlite-vec was unavailable.
      const ins = this.db.prepare(`INSERT INTO ${t.vec}(rowid, embedding) VALUES (?, ?)`);
      const rows = this.db.prepare(`SELECT rid, embedding FROM ${t.table}`).all() as Array<{ rid: number; embedding: Buffer }>;
      this.db.transaction(() => rows.forEach((r) => ins.run(BigInt(r.rid), r.embedding)))();
    }
  }

  private count(table: string): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  }

  upsert(kind: VectorKind, rid: number, vec: Float32Array): void {
    const t = VECTOR_TABLES[kind];
    this.sql.get(`DELETE FROM ${t.vec} WHERE rowid = ?`).run(BigInt(rid));
    this.sql.get(`INSERT INTO ${t.vec}(rowid, embedding) VALUES (?, ?)`).run(BigInt(rid), vectorToBuffer(vec));
  }

  remove(kind: VectorKind, rid: number): void {
    this.sql.get(`DELETE FROM ${VECTOR_TABLES[kind].vec} WHERE rowid = ?`).run(BigInt(rid));
  }

  knn(kind: VectorKind, vec: Float32Array, k: number): Knn[] {
    const t = VECTOR_TABLES[kind];
    if (k <= 0 || !this.exists(t.vec)) return [];
    const rows = this.sql
      .get(`SELECT n.${t.id} AS id, v.distance AS distance FROM (SELECT rowid, distance FROM ${t.vec} WHERE embedding MATCH ? AND k = ?) v JOIN ${t.table} n ON n.rid = v.rowid ORDER BY v.distance, n.${t.id}`)
      .all(vectorToBuffer(vec), k) as Array<{ id: string; distance: number }>;
    return rows.map((r) => ({ id: r.id, similarity: 1 - r.distance }));
  }

  private exists(table: string): boolean {
    if (this.present.has(table)) return true;
    const found = this.sql.get('SELECT 1 FROM sqlite_master WHERE name = ?').get(table) !== undefined;
    if (found) this.present.add(table);
    return found;
  }
}
