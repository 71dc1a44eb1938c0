/**
 * The knowledge layer on loopback for integration tests: the stand-alone service over an in-memory SQLite
 * store loaded with the synthetic fixtures, test client keys, a movable clock and captured log lines.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config';
import { startKnowledge, type RunningKnowledge } from '../../server/knowledge/main';
import { ROOT } from './hub';

export const FIXTURES = path.join(ROOT, 'test/fixtures/knowledge');
export const GOLD = path.join(FIXTURES, 'gold.json');

/** Test keys (never real): an active client with a quota of 3, an inactive one, one admitted by bare digest. */
export const KEYS = {
  almapro: 'lsk_almapro_0123456789abcdef0123456789abcdef',
  dormant: 'lsk_dormant_fedcba9876543210fedcba9876543210',
  open: 'lsk_open-client_00112233445566778899aabbccddeeff',
};
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function writeKeyFile(dir: string, quota = 3): string {
  const file = path.join(dir, 'knowledge-keys.json');
  fs.writeFileSync(file, JSON.stringify({ clients: [
    { slug: 'almapro', key_sha256: sha256(KEYS.almapro), active: true, daily_quota: quota },
    { slug: 'dormant', key_sha256: sha256(KEYS.dormant), active: false },
  ] }));
  return file;
}

export interface TestKnowledge extends RunningKnowledge {
  logs: string[];
  clock: { now: Date };
  dir: string;
}

export async function startTestKnowledge(env: Record<string, string> = {}, opts: { quota?: number } = {}): Promise<TestKnowledge> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-knowledge-'));
  const logs: string[] = [];
  const clock = { now: new Date('2026-12-01T10:00:00Z') };
  const config = loadConfig({
    HOST: '127.0.0.1', KNOWLEDGE_PORT: '0', LOG_LEVEL: 'info', KNOWLEDGE_ENABLED: 'true', KNOWLEDGE_DB_PATH: ':memory:', KNOWLEDGE_CONTENT: FIXTURES,
    KNOWLEDGE_KEYS_FILE: writeKeyFile(dir, opts.quota ?? 1000), KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.open), ...env,
  }, ROOT);
  const running = await startKnowledge(config, { logDestination: { write: (line: string) => void logs.push(line) }, clock: () => clock.now });
  const close = running.close.bind(running);
  return Object.assign(running, { logs, clock, dir, close: async () => { await close(); fs.rmSync(dir, { recursive: true, force: true }); } });
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEYS.open}`, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), signal });
}

/** A one-MKU content set whose verbatim holds markup (the routes and MCP must render it as text). */
export function writeScriptContent(dir: string): string {
  const folder = path.join(dir, 'xss');
  fs.mkdirSync(folder);
  const w = (kind: string, rows: unknown[]) => fs.writeFileSync(path.join(folder, `xss.${kind}.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n'));
  w('sources', [{ source_id: 99, name: 'XSS', org: 'Test <b>org</b>' }]);
  w('documents', [{ doc_id: 'doc_xss', title: 'Titre <img src=x onerror=alert(1)>', source_id: 99 }]);
  w('sections', [{ id: 'sec_xss', doc_id: 'doc_xss', titles: ['Section'] }]);
  w('chunks', [{ chunk_id: 'ch_xss', section_id: 'sec_xss', text: 'zanzibarite <script>alert(1)</script>' }]);
  w('mkus', [{ key: 'xss', chunk_id: 'ch_xss', verbatim: 'La zanzibarite se traite <script>alert("x")</script> & cie.', reviewed: true }]);
  w('concepts', [{ id: 'c_zanzibarite', label: 'zanzibarite' }]);
  w('edges', [{ src: 'c_zanzibarite', rel: 'TRIGGERS', dst_key: 'xss' }]);
  return folder;
}
