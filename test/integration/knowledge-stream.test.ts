/**
 * /v2/retrieve/stream failure and abort paths, over a store double the test controls: a store failure mid-run
 * ends the stream with an `error` line; a client that goes away stops the pipeline before its next stage.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { knowledgeRouter } from '../../server/knowledge/http/routes';
import { clientsFromHashes } from '../../server/knowledge/http/auth';
import { compileKnowledgeSchema } from '../../server/knowledge/http/validate';
import { createLogger } from '../../server/logger';
import { fakeConcept, fakeEmbedder, fakeMku, FakeKnowledgeStore } from '../support/knowledge-fake-store';
import { KEYS, post, sha256 } from '../support/knowledge-service';

async function serve(store: FakeKnowledgeStore, logs: string[]) {
  const app = express();
  const logger = createLogger('info', { write: (l: string) => void logs.push(l) });
  app.use(knowledgeRouter({ pipeline: { store, embedder: fakeEmbedder, policy: { allowUnreviewed: false, model: null } }, clients: clientsFromHashes([sha256(KEYS.open)]), logger, maxBodyBytes: 1 << 20 }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const connections = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

const content = () => ({ mkus: [fakeMku('m1')], concepts: [fakeConcept('c1', 'angine')], triggers: { c1: ['m1'] }, mkuCosine: { m1: 0.5 } });
const validLine = compileKnowledgeSchema('RetrieveStreamLine');

async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 5));
}

test('a store failure after the first stage ends the stream with one error line', async () => {
  const store = new FakeKnowledgeStore(content());
  store.onRead = (m) => {
    if (m === 'vectorMkus') throw new Error('disk on fire at /secret/path');
  };
  const logs: string[] = [];
  const s = await serve(store, logs);
  try {
    const res = await post(`${s.url}/v2/retrieve/stream`, { query: 'angine' });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.stage)).toEqual(['query_maker', 'error']);
    expect(lines[1].error).toEqual({ code: 'knowledge_unavailable', message: 'The knowledge store failed to answer this request.' });
    for (const l of lines) expect(validLine(l)).toBe(true);
    expect(logs.join('\n')).not.toContain('/secret/path');
  } finally {
    await s.close();
  }
});

test('a client abort stops the work: no stage runs after the disconnect', async () => {
  const store = new FakeKnowledgeStore(content());
  let reached = false;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  store.onRead = async (m) => {
    if (m !== 'vectorMkus') return;
    reached = true;
    await gate;
  };
  const logs: string[] = [];
  const s = await serve(store, logs);
  try {
    // node:http, so the abort destroys the socket at once (the server then sees the disconnect).
    const req = http.request(`${s.url}/v2/retrieve/stream`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEYS.open}` } });
    const firstLine = new Promise<string>((resolve) => req.on('response', (res) => res.once('data', (d: Buffer) => resolve(d.toString('utf8')))));
    req.on('error', () => {});
    req.end(JSON.stringify({ query: 'angine' }));
    expect(JSON.parse((await firstLine).split('\n')[0]).stage).toBe('query_maker');
    await until(() => reached);
    req.destroy();
    // The server has seen the disconnect; only then may the blocked stage finish.
    await until(async () => (await s.connections()) === 0);
    release();
    await until(() => logs.some((l) => l.includes('"aborted":true')));
  } finally {
    release();
    await s.close();
  }
  // The run that was waiting in the vector stage never reached the chunk layer, provenance or cross-refs.
  expect(store.calls).not.toContain('vectorChunks');
  expect(store.calls).not.toContain('provenance');
});

test('line breaks inside content never open a new NDJSON line', async () => {
  const store = new FakeKnowledgeStore({ ...content(), mkus: [fakeMku('m1', { verbatim: 'un\ndeux\r\ntrois\rquatre\u2028cinq' })] });
  const s = await serve(store, []);
  try {
    const text = await (await post(`${s.url}/v2/retrieve/stream`, { query: 'angine' })).text();
    const lines = text.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).stage)).toEqual(['query_maker', 'retrieval', 'answer', 'done']);
    expect(JSON.parse(lines[3]).data.mkus[0].verbatim).toBe('un\ndeux\r\ntrois\rquatre\u2028cinq');
  } finally {
    await s.close();
  }
});
