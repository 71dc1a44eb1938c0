import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, SETTINGS } from '../../server/config';

const ROOT = path.resolve(__dirname, '../..');

describe('loadConfig', () => {
  test('defaults', () => {
    const c = loadConfig({}, ROOT);
    expect(c.port).toBe(8080);
    // No router URL: the embedded engine over ./models (decision 25).
    expect(c.llmBackend).toBe('embedded');
    expect(c.llmBaseUrl).toBe('');
    expect(c.embedded).toEqual({ modelsDir: path.join(ROOT, 'models'), threads: Math.max(1, os.availableParallelism() - 1), maxLoadedModels: 1, prefixReuse: true });
    expect(c.sseHeartbeatSeconds).toBe(0.5);
    expect(c.routerMaxConcurrency).toBe(1);
    expect(c.apiKeyHashes).toEqual([]);
    expect(c.buildRevision).toBe('unknown');
    expect(c.querystore).toBeNull();
  });

  test.each<[Record<string, string>, 'router' | 'embedded', string]>([
    [{}, 'embedded', ''],
    [{ LLM_BASE_URL: 'http://router:8077/' }, 'router', 'http://router:8077'],
    [{ LLM_BACKEND: 'router' }, 'router', 'http://localhost:8077'],
    [{ LLM_BACKEND: 'ROUTER', LLM_BASE_URL: 'http://r:1' }, 'router', 'http://r:1'],
    [{ LLM_BACKEND: 'embedded', LLM_BASE_URL: 'http://r:1' }, 'embedded', ''],
    [{ LLM_BACKEND: 'auto', LLM_BASE_URL: '  ' }, 'embedded', ''],
  ])('backend of %j is %s at %j', (env, backend, url) => {
    const c = loadConfig(env, ROOT);
    expect(c.llmBackend).toBe(backend);
    expect(c.llmBaseUrl).toBe(url);
  });

  test.each<[Record<string, string>, string]>([
    [{ LLM_BACKEND: 'ollama' }, 'LLM_BACKEND'],
    [{ EMBEDDED_THREADS: '0' }, 'EMBEDDED_THREADS'],
    [{ EMBEDDED_MAX_LOADED_MODELS: '1.5' }, 'EMBEDDED_MAX_LOADED_MODELS'],
    [{ EMBEDDED_PREFIX_REUSE: 'maybe' }, 'EMBEDDED_PREFIX_REUSE'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '80.5' }, 'PORT'],
    [{ LLM_BASE_URL: 'not a url' }, 'LLM_BASE_URL'],
    [{ LLM_BASE_URL: 'ftp://x' }, 'LLM_BASE_URL'],
    [{ ROUTER_MAX_CONCURRENCY: '0' }, 'ROUTER_MAX_CONCURRENCY'],
    [{ ROUTER_MAX_QUEUE: '-1' }, 'ROUTER_MAX_QUEUE'],
    [{ HUB_MAX_BODY_BYTES: 'lots' }, 'HUB_MAX_BODY_BYTES'],
    [{ HUB_API_KEYS: 'plain-text-key' }, 'HUB_API_KEYS'],
    [{ HUB_ANCHOR: 'tomorrow' }, 'HUB_ANCHOR'],
    [{ HUB_ANCHOR: '2026-02-30' }, 'HUB_ANCHOR'],
    [{ HUB_TIMEZONE: 'Mars/Olympus' }, 'HUB_TIMEZONE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HUB_BUILD_REVISION: 'abc' }, 'HUB_BUILD_REVISION'],
    [{ QUERYSTORE_BASE_URL: 'http://qs' }, 'QUERYSTORE_USERNAME'],
    [{ HUB_SSE_HEARTBEAT_SECONDS: 'fast' }, 'HUB_SSE_HEARTBEAT_SECONDS'],
  ])('%j stops start-up naming %s', (env, variable) => {
    let err: unknown;
    try {
      loadConfig(env, ROOT);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(variable);
    expect((err as Error).message).toContain(variable);
  });

  test('heartbeat has a floor of 0.1 s; anchors and zones accepted', () => {
    const c = loadConfig({ HUB_SSE_HEARTBEAT_SECONDS: '0.01', HUB_ANCHOR: '2026-03-10', HUB_TIMEZONE: 'Pacific/Honolulu', HUB_API_KEYS: 'A'.repeat(64) }, ROOT);
    expect(c.sseHeartbeatSeconds).toBe(0.1);
    expect(c.anchor).toBe('2026-03-10');
    expect(c.timezone).toBe('Pacific/Honolulu');
    expect(c.apiKeyHashes).toEqual(['a'.repeat(64)]);
  });

  test('env.recommended and the README document every setting', () => {
    const env = fs.readFileSync(path.join(ROOT, 'env.recommended'), 'utf8');
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const s of SETTINGS) {
      expect(env).toMatch(new RegExp(`^${s.name}=`, 'm'));
      expect(readme).toContain(`\`${s.name}\``);
    }
  });

  test('the README settings table and env.recommended name exactly the variables the parser knows', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration\n') + 1));
    const documented = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]).sort();
    const recommended = [...fs.readFileSync(path.join(ROOT, 'env.recommended'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]).sort();
    const known = SETTINGS.map((s) => s.name).sort();
    expect(new Set(known).size).toBe(known.length);
    expect(documented).toEqual(known);
    expect(recommended).toEqual(known);
  });

  test('only the settings module reads the environment', () => {
    // Every variable goes through the one table: a stray process.env read elsewhere would escape its validation and docs.
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && !file.startsWith(path.join(ROOT, 'server', 'config') + path.sep) && /process\.env\.[A-Z]|process\.env\[/.test(fs.readFileSync(file, 'utf8'))) offenders.push(path.relative(ROOT, file));
      }
    };
    walk(path.join(ROOT, 'server'));
    expect(offenders).toEqual([]);
  });
});
