/**
 * The knowledge layer on PostgreSQL beyond the store contract: what a real server does that PGlite cannot show.
 * Full-text ties at the candidate limit are cut alike whatever the database's collation (the real clusters
 * are ICU fr-FR, PGlite is C); `npm run knowledge` (as a role that only owns its database) and the hub start
 * with KNOWLEDGE_STORE=postgres and serve /v2/context with the answer SQLite gives; the store's connections run
 * without JIT; an idle connection the server drops neither ends the process nor loses the next request; every
 * database is dropped after, which fails while a connection is left open.
 */
import path from 'node:path';
import { Client } from 'pg';
import { createHashEmbedder } from '../../server/knowledge/embedder/hash';
import type { KnowledgeStore } from '../../server/knowledge/store/port';
import { poolClient } from '../../server/knowledge/store/postgres/sql-client';
import { FakeRouter } from '../support/fake-router';
import { ROOT, startTestHub } from '../support/hub';
import { FIXTURES, KEYS, post, sha256, startTestKnowledge, type TestKnowledge } from '../support/knowledge-service';
import { STORE_FACTORIES } from '../support/store-factories';
import { openTestDatabase, realPostgresRuns, type TestDatabase } from '../support/postgres-cluster';
import { startProcess } from '../support/run-process';

jest.setTimeout(60_000);

const embedder = createHashEmbedder(16);
const allergic = { query: 'Quel antibiotique pour une angine ?', patient_ehr: { allergies: ['Pénicilline'], age: 40, sex: 'F' } };

/**
 * 60 MKUs and 60 concepts ranked alike by full text, whose ids sort one way in bytes ("Z-…" before "z_…") and
 * the other way in French ("z_…" before "Z-…"). The candidate limit (50) falls among them.
 */
const TIED = [...Array.from({ length: 5 }, (_, i) => `Z-${i}`), ...Array.from({ length: 55 }, (_, i) => `z_${String(i).padStart(2, '0')}`)];

async function writeTied(store: KnowledgeStore): Promise<void> {
  await store.setIndexInfo({ embedder_id: embedder.id, dimension: embedder.dimension });
  const [v] = await embedder.embed(['zanzibarite']);
  await store.write({
    sources: [{ source_id: 1, name: 'S', org: 'S' }],
    documents: [{ doc_id: 'd', title: 'D', url: null, year: null, reco_id: null, source_id: 1, summary: null, license: null, lang: 'fr' }],
    sections: [{ id: 's', doc_id: 'd', titles: ['S'], pages: [], summary: null }],
    chunks: [{ chunk_id: 'c', section_id: 's', text: 'zanzibarite', page: null, embedding: v }],
    mkus: TIED.map((id) => ({
      id, verbatim: 'La zanzibarite se traite.', criteria: '', directive: '', mku_class: null, population: [], safety_critical: false, reviewed: true,
      evidence_grade: null, strength: null, lang: 'fr', content_hash: id, chunk_id: 'c', ctx_embedding: v,
    })),
    concepts: TIED.map((id) => ({ id, label: 'zanzibarite', source: 'local', synonyms: [], kind: 'condition' as const, embedding: v })),
  });
}

describe.each(STORE_FACTORIES.filter((f) => f.engine === 'postgres'))('full-text ties on $name', ({ open }) => {
  let store: KnowledgeStore;
  beforeAll(async () => {
    store = await open();
    await writeTied(store);
  });
  afterAll(async () => {
    await store?.close();
  });

  test('are cut at the candidate limit by id in byte order, whatever the collation', async () => {
    const first = ['Z-0', 'Z-1', 'Z-2'];
    expect((await store.lexicalMkus('zanzibarite', 3)).map((h) => h.mku.id)).toEqual(first);
    expect((await store.searchConcepts('zanzibarite', 3)).map((h) => h.concept.id)).toEqual(first);
  });
});

const onRealPostgres = realPostgresRuns() ? describe : describe.skip;

onRealPostgres('the knowledge layer on a real PostgreSQL', () => {
  const databases: TestDatabase[] = [];
  const database = async () => {
    const db = await openTestDatabase();
    databases.push(db);
    return db;
  };
  let sqlite: TestKnowledge;
  beforeAll(async () => {
    sqlite = await startTestKnowledge();
  });
  afterAll(async () => {
    await sqlite?.close();
    // A connection left open by the service under test makes its DROP DATABASE fail here.
    for (const db of databases.splice(0)) await db.drop();
  });

  const contextIds = async (url: string) => {
    const res = await post(`${url}/v2/context`, allergic);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { mkus: Array<{ id: string }>; safety_items: string[]; trace: { config: { store: string } } };
    return { store: body.trace.config.store, mkus: body.mkus.map((m) => m.id), safety: body.safety_items };
  };

  /** The README's set-up: a role that owns the database, the extensions made by a superuser. */
  const ownedByRole = async (db: TestDatabase) => {
    const role = `hub_${db.name}`;
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER`);
      await admin.query(`ALTER DATABASE ${db.name} OWNER TO ${role}`);
    } finally {
      await admin.end();
    }
    return db.url.replace('//postgres@', `//${role}@`);
  };

  test('npm run knowledge serves /v2/context from KNOWLEDGE_STORE=postgres as a plain role, as SQLite does, and stops cleanly', async () => {
    const db = await database();
    const url = await ownedByRole(db);
    const service = await startProcess(process.execPath, ['-r', path.join(ROOT, 'scripts/register-ts.js'), path.join(ROOT, 'server/knowledge/main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', KNOWLEDGE_PORT: '0', LOG_LEVEL: 'warn',
        KNOWLEDGE_STORE: 'postgres', KNOWLEDGE_DATABASE_URL: url, KNOWLEDGE_CONTENT: FIXTURES, KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.open),
      },
      ready: /listening on (http:\/\/\S+) \((\w+) store\)/,
    });
    let stopped = false;
    try {
      expect(service.ready[2]).toBe('postgres');
      const onPostgres = await contextIds(service.ready[1]);
      expect(onPostgres.store).toBe('postgres');
      expect(onPostgres.safety.length).toBeGreaterThan(0);
      const onSqlite = await contextIds(sqlite.url);
      expect({ ...onPostgres, store: 'sqlite' }).toEqual(onSqlite);
      const out = await service.stop();
      stopped = true;
      expect(out.code).toBe(0);
      expect(out.stdout + out.stderr).not.toContain(url);
    } finally {
      if (!stopped) await service.stop('SIGKILL');
    }
  });

  test('the hub mounts the knowledge routes on it and closes its connections when it stops', async () => {
    const db = await database();
    const router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    try {
      const hub = await startTestHub({
        LLM_BASE_URL: router.baseUrl, KNOWLEDGE_STORE: 'postgres', KNOWLEDGE_DATABASE_URL: db.url, KNOWLEDGE_CONTENT: FIXTURES, KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.open),
      });
      try {
        expect(await contextIds(hub.url)).toEqual({ ...(await contextIds(sqlite.url)), store: 'postgres' });
      } finally {
        await hub.close();
      }
    } finally {
      await router.stop();
    }
  });

  test('the store runs its connections without JIT, in and out of transactions', async () => {
    const db = await database();
    const client = await poolClient(db.url);
    try {
      expect((await client.query<{ jit: string }>('SHOW jit')).rows).toEqual([{ jit: 'off' }]);
      expect(await client.transaction(async (tx) => (await tx.query<{ jit: string }>('SHOW jit')).rows)).toEqual([{ jit: 'off' }]);
    } finally {
      await client.close();
    }
  });

  test('an idle connection the server drops neither ends the process nor fails the next request', async () => {
    const db = await database();
    const k = await startTestKnowledge({ KNOWLEDGE_STORE: 'postgres', KNOWLEDGE_DATABASE_URL: db.url });
    try {
      const before = await contextIds(k.url);
      expect(await db.dropConnections()).toBeGreaterThan(0);
      expect(await contextIds(k.url)).toEqual(before);
    } finally {
      await k.close();
    }
  });
});
