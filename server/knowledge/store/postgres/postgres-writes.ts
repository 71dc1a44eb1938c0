/**
 * Writes of the Postgres store: one transaction per batch; stored hashes are fetched per kind in one query and
 * only rows whose content hash differs are upserted (an identical re-load changes 0 rows).
 */
import type { ContentBatch, IndexInfo } from '../port';
import { rowHash, vectorLiteral } from '../row-hash';
import type { SqlClient } from './sql-client';

type Tx = Pick<SqlClient, 'query'>;

async function storedHashes(tx: Tx, table: string, key: string, ids: Array<string | number>): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{ k: string; row_hash: string }>(
    `SELECT ${key}::text AS k, row_hash FROM ${table} WHERE ${key}::text IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    [JSON.stringify(ids.map(String))],
  );
  return new Map(rows.map((r) => [r.k, r.row_hash]));
}

/** Rows of one kind whose hash differs from the stored one, paired with their new hash. */
async function changedRows<T>(tx: Tx, table: string, key: string, kind: string, items: T[] | undefined, id: (x: T) => string | number) {
  const list = items ?? [];
  const stored = await storedHashes(tx, table, key, list.map(id));
  return list.map((x) => ({ x, h: rowHash(kind, x as object) })).filter(({ x, h }) => stored.get(String(id(x))) !== h);
}

function checkDimension(info: IndexInfo | null, vec: Float32Array, what: string): void {
  if (!info) throw new Error(`knowledge store: setIndexInfo must be called before writing vectors (${what})`);
  if (vec.length !== info.dimension) throw new Error(`knowledge store: ${what} has a ${vec.length}-dimensional vector, the index is ${info.dimension}`);
}

export async function writeBatch(db: SqlClient, b: ContentBatch, info: IndexInfo | null): Promise<number> {
  for (const c of b.chunks ?? []) checkDimension(info, c.embedding, `chunk ${c.chunk_id}`);
  for (const m of b.mkus ?? []) checkDimension(info, m.ctx_embedding, `MKU ${m.id}`);
  for (const c of b.concepts ?? []) checkDimension(info, c.embedding, `concept ${c.id}`);
  return db.transaction(async (tx) => {
    let changed = 0;
    for (const { x: s, h } of await changedRows(tx, 'sources', 'source_id', 'source', b.sources, (s) => s.source_id)) {
      await tx.query(`INSERT INTO sources (source_id, name, org, row_hash) VALUES ($1, $2, $3, $4)
        ON CONFLICT (source_id) DO UPDATE SET name = EXCLUDED.name, org = EXCLUDED.org, row_hash = EXCLUDED.row_hash`, [s.source_id, s.name, s.org, h]);
      changed++;
    }
    for (const { x: d, h } of await changedRows(tx, 'documents', 'doc_id', 'document', b.documents, (d) => d.doc_id)) {
      await tx.query(`INSERT INTO documents (doc_id, title, url, year, reco_id, source_id, summary, license, lang, row_hash)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (doc_id) DO UPDATE SET title = EXCLUDED.title, url = EXCLUDED.url,
        year = EXCLUDED.year, reco_id = EXCLUDED.reco_id, source_id = EXCLUDED.source_id, summary = EXCLUDED.summary,
        license = EXCLUDED.license, lang = EXCLUDED.lang, row_hash = EXCLUDED.row_hash`,
      [d.doc_id, d.title, d.url, d.year, d.reco_id, d.source_id, d.summary, d.license, d.lang, h]);
      changed++;
    }
    for (const { x: s, h } of await changedRows(tx, 'sections', 'id', 'section', b.sections, (s) => s.id)) {
      await tx.query(`INSERT INTO sections (id, doc_id, titles, pages, summary, row_hash) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6)
        ON CONFLICT (id) DO UPDATE SET doc_id = EXCLUDED.doc_id, titles = EXCLUDED.titles, pages = EXCLUDED.pages,
        summary = EXCLUDED.summary, row_hash = EXCLUDED.row_hash`, [s.id, s.doc_id, JSON.stringify(s.titles), JSON.stringify(s.pages), s.summary, h]);
      changed++;
    }
    for (const { x: c, h } of await changedRows(tx, 'chunks', 'chunk_id', 'chunk', b.chunks, (c) => c.chunk_id)) {
      await tx.query(`INSERT INTO chunks (chunk_id, section_id, text, page, tsv, row_hash) VALUES ($1, $2, $3, $4, to_tsvector('french', unaccent($3)), $5)
        ON CONFLICT (chunk_id) DO UPDATE SET section_id = EXCLUDED.section_id, text = EXCLUDED.text, page = EXCLUDED.page,
        tsv = EXCLUDED.tsv, row_hash = EXCLUDED.row_hash`, [c.chunk_id, c.section_id, c.text, c.page, h]);
      await upsertVector(tx, 'chunk_vec', c.chunk_id, c.embedding);
      changed++;
    }
    for (const { x: m, h } of await changedRows(tx, 'mkus', 'id', 'mku', b.mkus, (m) => m.id)) {
      await tx.query(`INSERT INTO mkus (id, verbatim, criteria, directive, mku_class, population, safety_critical, reviewed, evidence_grade,
          strength, lang, content_hash, chunk_id, tsv, row_hash)
        VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13, to_tsvector('french', unaccent($2)), $14)
        ON CONFLICT (id) DO UPDATE SET verbatim = EXCLUDED.verbatim, criteria = EXCLUDED.criteria, directive = EXCLUDED.directive,
        mku_class = EXCLUDED.mku_class, population = EXCLUDED.population, safety_critical = EXCLUDED.safety_critical,
        reviewed = EXCLUDED.reviewed, evidence_grade = EXCLUDED.evidence_grade, strength = EXCLUDED.strength, lang = EXCLUDED.lang,
        content_hash = EXCLUDED.content_hash, chunk_id = EXCLUDED.chunk_id, tsv = EXCLUDED.tsv, row_hash = EXCLUDED.row_hash`,
      [m.id, m.verbatim, m.criteria, m.directive, m.mku_class, JSON.stringify(m.population), m.safety_critical, m.reviewed,
        m.evidence_grade, m.strength, m.lang, m.content_hash, m.chunk_id, h]);
      await upsertVector(tx, 'mku_vec', m.id, m.ctx_embedding);
      changed++;
    }
    for (const { x: c, h } of await changedRows(tx, 'concepts', 'id', 'concept', b.concepts, (c) => c.id)) {
      // Names are separated so that no phrase runs from one name into the next.
      await tx.query(`INSERT INTO concepts (id, label, source, synonyms, kind, tsv, row_hash)
        VALUES ($1, $2, $3, $4::jsonb, $5, to_tsvector('french', unaccent($6)), $7)
        ON CONFLICT (id) DO UPDATE SET label = EXCLUDED.label, source = EXCLUDED.source, synonyms = EXCLUDED.synonyms,
        kind = EXCLUDED.kind, tsv = EXCLUDED.tsv, row_hash = EXCLUDED.row_hash`,
      [c.id, c.label, c.source, JSON.stringify(c.synonyms), c.kind, [c.label, ...c.synonyms].join(' ; '), h]);
      await upsertVector(tx, 'concept_vec', c.id, c.embedding);
      changed++;
    }
    for (const e of b.edges ?? []) {
      const { rows } = await tx.query<{ props_json: Record<string, unknown> }>('SELECT props_json FROM edges WHERE src = $1 AND rel = $2 AND dst = $3', [e.src, e.rel, e.dst]);
      if (rows[0] && rowHash('edge', rows[0].props_json) === rowHash('edge', e.props ?? {})) continue;
      await tx.query(`INSERT INTO edges (src, rel, dst, props_json) VALUES ($1, $2, $3, $4::jsonb)
        ON CONFLICT (src, rel, dst) DO UPDATE SET props_json = EXCLUDED.props_json`, [e.src, e.rel, e.dst, JSON.stringify(e.props ?? {})]);
      changed++;
    }
    return changed;
  });
}

async function upsertVector(tx: Tx, table: string, id: string, vec: Float32Array): Promise<void> {
  await tx.query(`INSERT INTO ${table} (id, embedding) VALUES ($1, $2::vector) ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding`, [id, vectorLiteral(vec)]);
}

/** Deletes the document's MKUs not in `keep`, with their vectors and every edge touching them. */
export async function pruneMkus(db: SqlClient, docId: string, keep: string[]): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT m.id FROM mkus m JOIN chunks c ON c.chunk_id = m.chunk_id JOIN sections s ON s.id = c.section_id
       WHERE s.doc_id = $1 AND m.id NOT IN (SELECT jsonb_array_elements_text($2::jsonb))`,
      [docId, JSON.stringify(keep)],
    );
    if (rows.length === 0) return 0;
    const ids = JSON.stringify(rows.map((r) => r.id));
    await tx.query('DELETE FROM mkus WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))', [ids]);
    await tx.query('DELETE FROM mku_vec WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))', [ids]);
    await tx.query('DELETE FROM edges WHERE src IN (SELECT jsonb_array_elements_text($1::jsonb)) OR dst IN (SELECT jsonb_array_elements_text($1::jsonb))', [ids]);
    return rows.length;
  });
}
