/**
 * The `model` extractor against the fake router: one request per chunk of a recommendation section, each
 * with `response_format: json_schema`; a returned verbatim that is not in its chunk (a paraphrase) is
 * rejected and counted, a reply that is not the schema's JSON is counted, and a valid one — even with the
 * spaces a PDF would lose — is stored with the chunk's own bytes and its provenance.
 */
import path from 'node:path';
import { createRouterClient } from '../../server/llm/router-client';
import type { RouterClient } from '../../server/llm/types';
import { createEmbedder } from '../../server/knowledge/embedder';
import { ingest } from '../../server/knowledge/ingest';
import { EXTRACTION_SCHEMA } from '../../server/knowledge/ingest/model-extractor';
import type { KnowledgeStore } from '../../server/knowledge/store/port';
import { FakeRouter } from '../support/fake-router';
import { openMemorySqliteStore } from '../support/knowledge-stores';

const ROOT = path.resolve(__dirname, '../..');
const NOTE = path.join(ROOT, 'test/fixtures/knowledge-ingest/anticoag-note.md');
const MODEL = 'extractor-model';

let fake: FakeRouter;
let router: RouterClient;
let store: KnowledgeStore;

beforeAll(async () => {
  fake = new FakeRouter({ models: [MODEL] });
  const baseUrl = await fake.start();
  router = createRouterClient({ baseUrl, maxConcurrency: 1, maxQueue: 4, connectTimeoutMs: 5000, idleTimeoutMs: 0, discoveryTimeoutMs: 5000, loadingRetries: 0 });
});
afterAll(async () => {
  await router.close();
  await fake.stop();
});
beforeEach(() => {
  store = openMemorySqliteStore();
  fake.requests.length = 0;
});
afterEach(async () => {
  await store.close();
});

test('paraphrases are rejected and counted; a valid quote is stored with the chunk\'s bytes and its provenance', async () => {
  fake.script(
    {
      match: { contains: 'Closely monitor INR' },
      content: JSON.stringify({
        units: [
          // Spaces lost the way a PDF loses them next to italics: still the chunk's text under the whitespace rule.
          { verbatim: 'Closely monitor INRwhen starting or stopping any antibiotic in patients taking  warfarin.', criteria: 'patients taking warfarin', directive: 'monitor INR closely around antibiotics' },
          { verbatim: 'Monitor the INR whenever an antibiotic is started.', criteria: 'warfarin', directive: 'monitor INR' },
        ],
      }),
    },
    { match: { contains: 'becomes pregnant' }, content: 'Sure! Here are the units: none.' },
    { content: '{"units": []}' },
  );
  const report = await ingest({
    inputs: [NOTE], extractor: 'model', model: { router, id: MODEL }, vocabularyFile: path.join(ROOT, 'data/knowledge/demo-concepts.yaml'),
    reviewed: true, store, embedder: createEmbedder(),
  });
  expect(report.rejected).toEqual({ 'verbatim not in chunk': 1, 'reply not the schema JSON': 1 });
  expect(report.mkus).toBe(1);

  // One request per chunk of the recommendation sections (contraindications ×3, interactions, populations).
  const chats = fake.requests.filter((r) => r.path === '/v1/chat/completions');
  expect(chats).toHaveLength(5);
  for (const r of chats) {
    expect(r.body.model).toBe(MODEL);
    expect(r.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'mku_units', strict: true, schema: EXTRACTION_SCHEMA } });
  }

  const id = report.records.mkus[0].id as string;
  const stored = (await store.mkusById([id])).get(id)!;
  expect(stored).toMatchObject({
    verbatim: 'Closely monitor INR when starting or stopping any antibiotic in patients taking warfarin.',
    criteria: 'patients taking warfarin', directive: 'monitor INR closely around antibiotics', safety_critical: true, reviewed: true,
  });
  const prov = (await store.provenance([id])).get(id)!;
  expect(prov).toMatchObject({
    doc_id: 'anticoag_note', doc_title: 'Synthetic warfarin note (Test Labeler A)', year: 2025, section_titles: ['Drug interactions'],
    doc_url: 'https://github.com/example/synthetic-ingest-fixtures/blob/0123456789abcdef0123456789abcdef01234567/fixtures/anticoag-note.md',
    source_org: 'Synthetic Test Authority — test labeling (labeler: Test Labeler A)',
  });
});

test('the model extractor needs a router model', async () => {
  await expect(ingest({ inputs: [NOTE], extractor: 'model', vocabularyFile: path.join(ROOT, 'data/knowledge/demo-concepts.yaml'), reviewed: false })).rejects.toThrow('needs a router model');
});
