/**
 * Opening stores: the brute-force fallback when sqlite-vec cannot load, a file store that persists and rebuilds
 * its vec0 index, the embedder check at open (IndexMismatchError naming both), and the Postgres factory's errors.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKnowledgeStore, IndexMismatchError } from '../../../server/knowledge/store';
import type { KnowledgeStore } from '../../../server/knowledge/store/port';
import { dataset, embedder, ID, mku } from '../../contract/knowledge-store.dataset';

const tmpDb = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kstore-')), 'nested', 'knowledge.db');
const info = { embedder_id: embedder.id, dimension: embedder.dimension };
const vec = async (t: string) => (await embedder.embed([t]))[0];

async function fill(store: KnowledgeStore): Promise<void> {
  await store.setIndexInfo(info);
  await store.write(await dataset());
}

describe('SQLite vector paths', () => {
  afterEach(() => {
    jest.dontMock('sqlite-vec');
    jest.resetModules();
  });

  test('auto falls back to brute-force cosine when sqlite-vec cannot load, with the same answers', async () => {
    let fallbackIds: string[] = [];
    let fallbackEngine = '';
    await jest.isolateModulesAsync(async () => {
      jest.doMock('sqlite-vec', () => ({ load: () => { throw new Error('extension missing'); } }));
      const { openSqliteStore } = await import('../../../server/knowledge/store/sqlite/sqlite-store');
      const store = openSqliteStore(':memory:');
      fallbackEngine = store.vectorEngine;
      await fill(store);
      fallbackIds = (await store.vectorMkus(await vec(mku('m3').verbatim), 6)).map((h) => h.mku.id);
      expect(() => openSqliteStore(':memory:', { vectors: 'sqlite-vec' })).toThrow(/sqlite-vec could not be loaded: extension missing/);
      await store.close();
    });
    jest.dontMock('sqlite-vec');
    expect(fallbackEngine).toBe('brute-force');
    const { openSqliteStore } = await import('../../../server/knowledge/store/sqlite/sqlite-store');
    const withVec = openSqliteStore(':memory:');
    expect(withVec.vectorEngine).toBe('sqlite-vec');
    await fill(withVec);
    expect((await withVec.vectorMkus(await vec(mku('m3').verbatim), 6)).map((h) => h.mku.id)).toEqual(fallbackIds);
    expect(fallbackIds).toHaveLength(6);
    await withVec.close();
  });
});

describe('createKnowledgeStore', () => {
  test('a file store persists, and refuses to open with another embedder (naming both)', async () => {
    const dbPath = tmpDb();
    const first = await createKnowledgeStore({ engine: 'sqlite', dbPath }, { embedder });
    await fill(first);
    await first.close();
    const again = await createKnowledgeStore({ dbPath }, { embedder });
    expect((await again.counts()).mkus).toBe(6);
    expect(await again.indexInfo()).toEqual(info);
    await again.close();
    const err = await createKnowledgeStore({ dbPath }, { embedder: { id: 'openai-compatible:e5', dimension: 768 } }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(IndexMismatchError);
    expect((err as Error).message).toContain("built with embedder 'hash-v1-64' (dimension 64)");
    expect((err as Error).message).toContain("configured embedder is 'openai-compatible:e5' (dimension 768)");
  });

  test('a file written without sqlite-vec gets its vec0 index rebuilt when opened with it', async () => {
    const dbPath = tmpDb();
    const brute = await createKnowledgeStore({ dbPath }, { sqliteVectors: 'brute-force' });
    await fill(brute);
    await brute.close();
    const withVec = await createKnowledgeStore({ dbPath }, { sqliteVectors: 'sqlite-vec' });
    const hits = await withVec.vectorMkus(await vec(mku('m5').verbatim), 1);
    expect(hits.map((h) => h.mku.id)).toEqual([ID.m5]);
    await withVec.close();
  });

  test('postgres needs a URL, and an unreachable server is a clear error without the password', async () => {
    await expect(createKnowledgeStore({ engine: 'postgres', databaseUrl: null })).rejects.toThrow(/KNOWLEDGE_DATABASE_URL is required/);
    const err = await createKnowledgeStore({ engine: 'postgres', databaseUrl: 'postgres://kb:s3cret@127.0.0.1:1/knowledge' }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/cannot reach the knowledge database at postgres:\/\/127\.0\.0\.1:1\/knowledge/);
    expect((err as Error).message).not.toContain('s3cret');
  });
});
