/**
 * The router client loads undici's Pool and request API alone (the whole package costs ~9 MB of RSS):
 * they must stay the very class and functions the package exports, and work without the package index.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import * as undici from 'undici';
import { Pool, UNDICI_API_MODULE } from '../../../server/llm/undici-pool';
import { buildConnector } from '../../../server/llm/warm-connector';

const ROOT = path.resolve(__dirname, '../../..');

test("the Pool and its request API are undici's exported ones", () => {
  expect(Pool).toBe(undici.Pool);
  const api = require(UNDICI_API_MODULE) as Record<string, unknown>;
  expect(Object.keys(api).sort()).toEqual(['connect', 'pipeline', 'request', 'stream', 'upgrade']);
  expect((Pool.prototype as unknown as Record<string, unknown>).request).toBe(api.request);
});

test("the spare-connection connector builds on undici's exported connector factory", () => {
  expect(buildConnector).toBe(undici.buildConnector);
});

test('loaded alone, the pool can make requests and the package index is never loaded', () => {
  const script = [
    "const { Pool } = require('./server/llm/undici-pool');",
    "const pool = new Pool('http://127.0.0.1:9');",
    "const loadedIndex = Object.keys(require.cache).some((f) => f.endsWith(require('node:path').join('undici', 'index.js')));",
    "process.stdout.write(JSON.stringify({ request: typeof pool.request, stream: typeof pool.stream, loadedIndex }));",
    'pool.close();',
  ].join('\n');
  const out = execFileSync(process.execPath, ['-r', './scripts/register-ts.js', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ request: 'function', stream: 'function', loadedIndex: false });
});
