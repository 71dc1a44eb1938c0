/**
 * Start-up loads only what the configuration uses (issue 11): a hub in front of a router with the knowledge
 * layer off never loads the knowledge engine, its store driver, the MCP SDK behind its routes, or the
 * embedded llama.cpp engine. Each is tens of MB of resident memory. Run in a child process, so the
 * module cache is the hub's alone.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function packagesLoadedAtStart(env: Record<string, string>): { packages: string[]; hubModules: string[] } {
  const script = [
    "const { loadConfig } = require('./server/config');",
    "const { startHub } = require('./server/main');",
    '(async () => {',
    '  const hub = await startHub(loadConfig(process.env, process.cwd()));',
    "  const files = Object.keys(require.cache);",
    "  const packages = [...new Set(files.filter((f) => f.includes('/node_modules/')).map((f) => { const m = f.split('/node_modules/').pop().split('/'); return m[0].startsWith('@') ? m[0] + '/' + m[1] : m[0]; }))].sort();",
    "  const hubModules = files.filter((f) => f.startsWith(require('node:path').join(process.cwd(), 'server') + '/')).map((f) => f.slice(process.cwd().length + 1));",
    '  process.stdout.write(JSON.stringify({ packages, hubModules }));',
    '  await hub.close();',
    '})();',
  ].join('\n');
  const out = execFileSync(process.execPath, ['-r', './scripts/register-ts.js', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TEAM_TRACE_DIR: path.join(os.tmpdir(), `mah-startup-${process.pid}`), KNOWLEDGE_DB_PATH: ':memory:', ...env },
  });
  return JSON.parse(out);
}

test('a router hub with the knowledge-base source off and no lsk key (routes mounted, locked) loads no knowledge engine, store driver, MCP SDK or embedded engine', () => {
  const { packages, hubModules } = packagesLoadedAtStart({ LLM_BASE_URL: 'http://127.0.0.1:9', KNOWLEDGE_SOURCE: 'off' });
  for (const pkg of ['@modelcontextprotocol/sdk', 'zod', 'better-sqlite3', 'pg', '@huggingface/jinja', 'node-llama-cpp']) expect(packages).not.toContain(pkg);
  // Its settings and published schemas are part of the hub's config and OpenAPI document; the engine is not.
  const engine = ['server/knowledge/service.ts', 'server/knowledge/store/', 'server/knowledge/mcp/', 'server/knowledge/http/routes.ts', 'server/knowledge/loader', 'server/knowledge/embedder'];
  expect(hubModules.filter((m) => engine.some((e) => m.startsWith(e)))).toEqual([]);
  expect(hubModules.filter((m) => m.startsWith('server/llm/embedded/'))).toEqual([]);
  // The chosen stack is there.
  for (const pkg of ['express', 'ajv', 'pino', 'prom-client', 'undici', 'yaml']) expect(packages).toContain(pkg);
  // The knowledge routes are mounted (decision 30) through the door alone.
  expect(hubModules).toContain('server/knowledge/index.ts');
});

test('with a key configured the routes serve: the engine and the MCP SDK load', () => {
  const { packages } = packagesLoadedAtStart({ LLM_BASE_URL: 'http://127.0.0.1:9', KNOWLEDGE_SOURCE: 'off', KNOWLEDGE_CONTENT: 'none', KNOWLEDGE_API_KEY_HASHES: 'b'.repeat(64) });
  expect(packages).toContain('better-sqlite3');
  expect(packages).toContain('@modelcontextprotocol/sdk');
});

test('with the in-process knowledge-base source on, the engine and its store load, but not the MCP SDK of the routes', () => {
  const { packages } = packagesLoadedAtStart({ LLM_BASE_URL: 'http://127.0.0.1:9', KNOWLEDGE_SOURCE: 'auto', KNOWLEDGE_CONTENT: 'none' });
  expect(packages).toContain('better-sqlite3');
  expect(packages).not.toContain('@modelcontextprotocol/sdk');
  expect(packages).not.toContain('zod');
});
