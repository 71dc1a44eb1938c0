/**
 * The SQLite trigger walk's join-order fix (sqlite-store.ts `TRIGGERS_SQL`) returns exactly the rows the former
 * query returned, kept here as the oracle: over the demo knowledge base (every concept alone, and random seed
 * sets, depths 0–5) and over random concept graphs with cycles, parallel edges and dangling seeds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createEmbedder } from '../../../server/knowledge/embedder';
import { loadContent } from '../../../server/knowledge/loader';
import { createSchema } from '../../../server/knowledge/store/sqlite/schema';
import { openSqliteStore, TRIGGERS_SQL } from '../../../server/knowledge/store/sqlite/sqlite-store';
import { Rng } from '../../support/fuzz/rng';

const ORACLE_SQL = `
WITH RECURSIVE
  cg(a, b) AS (SELECT src, dst FROM edges WHERE rel IN ('RELATED', 'BROADER')
               UNION ALL SELECT dst, src FROM edges WHERE rel IN ('RELATED', 'BROADER')),
  reach(concept, seed, hops) AS (
    SELECT value, value, 0 FROM json_each(?)
    UNION
    SELECT cg.b, r.seed, r.hops + 1 FROM reach r JOIN cg ON cg.a = r.concept WHERE r.hops < ?)
SELECT r.seed AS seed, MIN(r.hops) AS hops, t.dst AS mku_id, t.props_json AS props_json
FROM reach r JOIN edges t ON t.src = r.concept AND t.rel = 'TRIGGERS'
GROUP BY r.seed, t.src, t.dst`;

type Row = { seed: string; hops: number; mku_id: string; props_json: string };

/** Row order was never part of the contract (reads.ts aggregates), so rows compare as sorted sets. */
function walk(db: Database.Database, sql: string, seeds: string[], depth: number): string[] {
  return (db.prepare(sql).all(JSON.stringify(seeds), depth) as Row[]).map((r) => JSON.stringify([r.seed, r.hops, r.mku_id, r.props_json])).sort();
}

/** The suites' seeded generator (mulberry32): failures reproduce. */
function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}

function pick<T>(rand: () => number, xs: T[], n: number): T[] {
  return Array.from({ length: n }, () => xs[Math.floor(rand() * xs.length)]);
}

describe('TRIGGERS_SQL equals the former walk', () => {
  test('over the demo knowledge base', async () => {
    // The store's connection is private: load into a file and read the same file through a second connection.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-walk-'));
    const file = path.join(dir, 'kb.db');
    const store = openSqliteStore(file, { vectors: 'brute-force' });
    let db: Database.Database | null = null;
    try {
      await loadContent(store, createEmbedder(), [path.join(__dirname, '../../../data/knowledge/demo')]);
      db = new Database(file, { readonly: true });
      const concepts = (db.prepare('SELECT id FROM concepts ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
      expect(concepts.length).toBeGreaterThan(10);
      let compared = 0;
      for (let depth = 0; depth <= 5; depth++) {
        for (const c of concepts) {
          expect(walk(db, TRIGGERS_SQL, [c], depth)).toEqual(walk(db, ORACLE_SQL, [c], depth));
          compared++;
        }
      }
      expect(walk(db, TRIGGERS_SQL, concepts, 2).length).toBeGreaterThan(100);
      const rand = rng(7);
      for (let i = 0; i < 200; i++) {
        const seeds = pick(rand, [...concepts, 'c_unknown'], 1 + Math.floor(rand() * 8));
        const depth = Math.floor(rand() * 6);
        expect(walk(db, TRIGGERS_SQL, seeds, depth)).toEqual(walk(db, ORACLE_SQL, seeds, depth));
        compared++;
      }
      expect(compared).toBeGreaterThan(300);
    } finally {
      db?.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('over random concept graphs (cycles, both directions, dangling seeds)', () => {
    const rand = rng(20250601);
    for (let g = 0; g < 40; g++) {
      const db = new Database(':memory:');
      try {
        createSchema(db);
        const concepts = Array.from({ length: 4 + Math.floor(rand() * 20) }, (_, i) => `c${i}`);
        const mkus = Array.from({ length: 3 + Math.floor(rand() * 30) }, (_, i) => `m${i}`);
        const ins = db.prepare('INSERT OR REPLACE INTO edges (src, rel, dst, props_json) VALUES (?, ?, ?, ?)');
        const graphEdges = Math.floor(rand() * concepts.length * 2);
        for (let i = 0; i < graphEdges; i++) {
          const [a, b] = pick(rand, concepts, 2);
          ins.run(a, rand() < 0.5 ? 'RELATED' : 'BROADER', b, '{}');
        }
        const triggers = Math.floor(rand() * mkus.length * 3);
        for (let i = 0; i < triggers; i++) {
          const role = rand() < 0.5 ? 'criteria' : 'directive';
          ins.run(pick(rand, concepts, 1)[0], 'TRIGGERS', pick(rand, mkus, 1)[0], JSON.stringify({ role, weight: Math.round(rand() * 100) / 100 }));
        }
        // Edges of other kinds between the same ids must not be walked.
        ins.run(mkus[0], 'CROSS_REF', mkus[1], JSON.stringify({ stance: 'AGREE' }));
        for (let q = 0; q < 25; q++) {
          const seeds = pick(rand, [...concepts, 'c_missing', mkus[0]], 1 + Math.floor(rand() * 6));
          const depth = Math.floor(rand() * 6);
          expect(walk(db, TRIGGERS_SQL, seeds, depth)).toEqual(walk(db, ORACLE_SQL, seeds, depth));
        }
      } finally {
        db.close();
      }
    }
  });
});
