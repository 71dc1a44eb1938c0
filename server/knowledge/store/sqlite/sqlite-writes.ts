/**
 * Writes of the SQLite store: one transaction per batch; a row is touched only when its content hash differs
 * from the stored one (so an identical re-load changes 0 rows), and its FTS and vector rows follow it.
 */
import type Database from 'better-sqlite3';
import type { ContentBatch, IndexInfo } from '../port';
import { rowHash, vectorToBuffer } from '../row-hash';
import type { VectorIndex } from './vectors';
import type { VectorKind } from './schema';
import { Statements } from './statements';

export class SqliteWriter {
  // Prepared once: a bulk load runs the same few statements thousands of times.
  private readonly stmts: Statements;

  constructor(private readonly db: Database.Database, private readonly vectors: VectorIndex, private readonly info: () => IndexInfo | null) {
    this.stmts = new Statements(db);
  }

  private stmt(sql: string): Database.Statement {
    return this.stmts.get(sql);
  }

  write(batch: ContentBatch): number {
    return this.db.transaction(() => this.writeAll(batch))();
  }

  private checkDimension(vec: Float32Array, what: string): void {
    const info = this.info();
    if (!info) throw new Error(`knowledge store: setIndexInfo must be called before writing vectors (${what})`);
    if (vec.length !== info.dimension) throw new Error(`knowledge store: ${what} has a ${vec.length}-dimensional vector, the index is ${info.dimension}`);
  }

  private storedHash(sql: string, key: unknown): string | undefined {
    return (this.stmt(sql).get(key) as { row_hash: string } | undefined)?.row_hash;
  }

  private writeAll(b: ContentBatch): number {
    let changed = 0;
    for (const s of b.sources ?? []) {
      const h = rowHash('source', s);
      if (this.storedHash('SELECT row_hash FROM sources WHERE source_id = ?', s.source_id) === h) continue;
      this.stmt('INSERT OR REPLACE INTO sources (source_id, name, org, row_hash) VALUES (?, ?, ?, ?)').run(s.source_id, s.name, s.org, h);
      changed++;
    }
    for (const d of b.documents ?? []) {
      const h = rowHash('document', d);
      if (this.storedHash('SELECT row_hash FROM documents WHERE doc_id = ?', d.doc_id) === h) continue;
      this.stmt('INSERT OR REPLACE INTO documents (doc_id, title, url, year, reco_id, source_id, summary, license, lang, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(d.doc_id, d.title, d.url, d.year, d.reco_id, d.source_id, d.summary, d.license, d.lang, h);
      changed++;
    }
    for (const s of b.sections ?? []) {
      const h = rowHash('section', s);
      if (this.storedHash('SELECT row_hash FROM sections WHERE id = ?', s.id) === h) continue;
      this.stmt('INSERT OR REPLACE INTO sections (id, doc_id, titles_json, pages_json, summary, row_hash) VALUES (?, ?, ?, ?, ?, ?)')
        .run(s.id, s.doc_id, JSON.stringify(s.titles), JSON.stringify(s.pages), s.summary, h);
      changed++;
    }
    for (const c of b.chunks ?? []) {
      this.checkDimension(c.embedding, `chunk ${c.chunk_id}`);
      const h = rowHash('chunk', c);
      if (this.storedHash('SELECT row_hash FROM chunks WHERE chunk_id = ?', c.chunk_id) === h) continue;
      const rid = this.upsertRid(
        'INSERT INTO chunks (chunk_id, section_id, text, page, embedding, row_hash) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chunk_id) DO UPDATE SET section_id = excluded.section_id, text = excluded.text, page = excluded.page, embedding = excluded.embedding, row_hash = excluded.row_hash RETURNING rid',
        [c.chunk_id, c.section_id, c.text, c.page, vectorToBuffer(c.embedding), h],
      );
      this.refreshText('chunk_fts', 'text', rid, c.text);
      this.vectors.upsert('chunk', rid, c.embedding);
      changed++;
    }
    for (const m of b.mkus ?? []) {
      this.checkDimension(m.ctx_embedding, `MKU ${m.id}`);
      const h = rowHash('mku', m);
      if (this.storedHash('SELECT row_hash FROM mkus WHERE id = ?', m.id) === h) continue;
      const rid = this.upsertRid(
        `INSERT INTO mkus (id, verbatim, criteria, directive, mku_class, population_json, safety_critical, reviewed, evidence_grade, strength, lang, content_hash, chunk_id, embedding, row_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET verbatim = excluded.verbatim, criteria = excluded.criteria,
         directive = excluded.directive, mku_class = excluded.mku_class, population_json = excluded.population_json, safety_critical = excluded.safety_critical,
         reviewed = excluded.reviewed, evidence_grade = excluded.evidence_grade, strength = excluded.strength, lang = excluded.lang,
         content_hash = excluded.content_hash, chunk_id = excluded.chunk_id, embedding = excluded.embedding, row_hash = excluded.row_hash RETURNING rid`,
        [m.id, m.verbatim, m.criteria, m.directive, m.mku_class, JSON.stringify(m.population), m.safety_critical ? 1 : 0, m.reviewed ? 1 : 0,
          m.evidence_grade, m.strength, m.lang, m.content_hash, m.chunk_id, vectorToBuffer(m.ctx_embedding), h],
      );
      this.refreshText('mku_fts', 'verbatim', rid, m.verbatim);
      this.vectors.upsert('mku', rid, m.ctx_embedding);
      changed++;
    }
    for (const c of b.concepts ?? []) {
      this.checkDimension(c.embedding, `concept ${c.id}`);
      const h = rowHash('concept', c);
      if (this.storedHash('SELECT row_hash FROM concepts WHERE id = ?', c.id) === h) continue;
      const rid = this.upsertRid(
        'INSERT INTO concepts (id, label, source, synonyms_json, kind, embedding, row_hash) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET label = excluded.label, source = excluded.source, synonyms_json = excluded.synonyms_json, kind = excluded.kind, embedding = excluded.embedding, row_hash = excluded.row_hash RETURNING rid',
        [c.id, c.label, c.source, JSON.stringify(c.synonyms), c.kind, vectorToBuffer(c.embedding), h],
      );
      // Synonyms are separated so a phrase match cannot run from one name into the next.
      this.refreshText('concept_fts', 'names', rid, [c.label, ...c.synonyms].join(' ; '));
      this.vectors.upsert('concept', rid, c.embedding);
      changed++;
    }
    for (const e of b.edges ?? []) {
      const props = JSON.stringify(e.props ?? {});
      const stored = this.stmt('SELECT props_json FROM edges WHERE src = ? AND rel = ? AND dst = ?').get(e.src, e.rel, e.dst) as { props_json: string } | undefined;
      if (stored && rowHash('edge', JSON.parse(stored.props_json) as object) === rowHash('edge', e.props ?? {})) continue;
      this.stmt('INSERT OR REPLACE INTO edges (src, rel, dst, props_json) VALUES (?, ?, ?, ?)').run(e.src, e.rel, e.dst, props);
      changed++;
    }
    return changed;
  }

  private upsertRid(sql: string, params: unknown[]): number {
    return (this.stmt(sql).get(...params) as { rid: number }).rid;
  }

  private refreshText(table: string, column: string, rid: number, text: string): void {
    this.stmt(`DELETE FROM ${table} WHERE rowid = ?`).run(rid);
    this.stmt(`INSERT INTO ${table} (rowid, ${column}) VALUES (?, ?)`).run(rid, text);
  }

  /** Deletes the document's MKUs not in `keep`, with their FTS rows, vectors and every edge touching them. */
  pruneMkus(docId: string, keep: string[]): number {
    return this.db.transaction(() => {
      const rows = this.db
        .prepare(`SELECT m.rid, m.id FROM mkus m JOIN chunks c ON c.chunk_id = m.chunk_id JOIN sections s ON s.id = c.section_id
                  WHERE s.doc_id = ? AND m.id NOT IN (SELECT value FROM json_each(?))`)
        .all(docId, JSON.stringify(keep)) as Array<{ rid: number; id: string }>;
      for (const r of rows) this.deleteMku(r.rid, r.id);
      return rows.length;
    })();
  }

  private deleteMku(rid: number, id: string): void {
    this.stmt('DELETE FROM mkus WHERE rid = ?').run(rid);
    this.stmt('DELETE FROM mku_fts WHERE rowid = ?').run(rid);
    this.vectors.remove('mku' as VectorKind, rid);
    this.stmt('DELETE FROM edges WHERE src = ? OR dst = ?').run(id, id);
  }
}
