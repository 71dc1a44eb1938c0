/**
 * LLM_BACKENDS, the per-model backend map file: good files read into backends and routes (one backend per base
 * URL, names, slot limits, keys from the variables api_key_env names, the fallback for unnamed models), and
 * every bad file stops start-up with one line naming the file, the model id and the field (or the variable).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, type BackendMapConfig } from '../../server/config';

const ROOT = path.resolve(__dirname, '../..');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-backends-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(text: string, ext = 'yaml'): string {
  const p = path.join(dir, `backends-${++n}.${ext}`);
  fs.writeFileSync(p, text);
  return p;
}

function load(text: string, env: Record<string, string> = {}, ext = 'yaml'): BackendMapConfig {
  const map = loadConfig({ LLM_BACKENDS: file(text, ext), ...env }, ROOT).llmBackends;
  if (!map) throw new Error('no map');
  return map;
}

function refusal(text: string, env: Record<string, string> = {}, ext = 'yaml'): ConfigError {
  try {
    load(text, env, ext);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('LLM_BACKENDS: good files', () => {
  test('unset: no map, the one backend as before', () => {
    expect(loadConfig({ LLM_BASE_URL: 'http://r:1' }, ROOT).llmBackends).toBeNull();
  });

  test('models on their own routers, replicas, the embedded engine; one backend per base URL with its own limits', () => {
    const map = load(
      [
        'models:',
        '  gemma-4-12b: { base_url: "http://gpu-a:8077/", api_key_env: GPU_A_KEY, name: gpu-a, max_concurrency: 2 }',
        '  gemma-e4b: { base_url: http://gpu-a:8077 }',
        '  qwen3.5-9b:',
        '    - { base_url: http://gpu-b:8077, max_queue: 8 }',
        '    - { base_url: "http://gpu-c:8077/v1proxy" }',
        '  tiny: embedded',
      ].join('\n'),
      { GPU_A_KEY: ' sk-a ', ROUTER_MAX_CONCURRENCY: '3', ROUTER_MAX_QUEUE: '5' },
    );
    expect(map.routers).toEqual([
      { name: 'gpu-a', baseUrl: 'http://gpu-a:8077', apiKey: 'sk-a', maxConcurrency: 2, maxQueue: 5 },
      { name: 'http://gpu-b:8077', baseUrl: 'http://gpu-b:8077', apiKey: '', maxConcurrency: 3, maxQueue: 8 },
      { name: 'http://gpu-c:8077/v1proxy', baseUrl: 'http://gpu-c:8077/v1proxy', apiKey: '', maxConcurrency: 3, maxQueue: 5 },
    ]);
    expect([...map.models]).toEqual([
      ['gemma-4-12b', ['gpu-a']],
      ['gemma-e4b', ['gpu-a']],
      ['qwen3.5-9b', ['http://gpu-b:8077', 'http://gpu-c:8077/v1proxy']],
      ['tiny', ['embedded']],
    ]);
    expect(map.usesEmbedded).toBe(true);
    // LLM_BACKEND=auto with no LLM_BASE_URL: a model the file does not name is not served.
    expect(map.fallback).toBeNull();
  });

  test('JSON works the same', () => {
    const map = load(JSON.stringify({ models: { m: [{ base_url: 'https://a:1' }, { base_url: 'https://b:2', name: 'b' }] } }), {}, 'json');
    expect([...map.models]).toEqual([['m', ['https://a:1', 'b']]]);
    expect(map.usesEmbedded).toBe(false);
  });

  test.each<[string, Record<string, string>, string | null, string[]]>([
    ['LLM_BASE_URL serves the models the file does not name, as `default`', { LLM_BASE_URL: 'http://main:8077', LLM_API_KEY: 'k' }, 'default', ['gpu-a', 'default']],
    ['LLM_BASE_URL equal to a file base URL is that backend (one semaphore)', { LLM_BASE_URL: 'http://gpu-a:8077/' }, 'gpu-a', ['gpu-a']],
    ['LLM_BACKEND=router without a URL: the default URL', { LLM_BACKEND: 'router' }, 'default', ['gpu-a', 'default']],
    ['LLM_BACKEND=embedded: the engine', { LLM_BACKEND: 'embedded' }, 'embedded', ['gpu-a']],
    ['auto with no URL: nowhere', {}, null, ['gpu-a']],
  ])('%s', (_what, env, fallback, routers) => {
    const map = load('models:\n  m: { base_url: "http://gpu-a:8077", name: gpu-a }\n', env);
    expect(map.fallback).toBe(fallback);
    expect(map.routers.map((r) => r.name)).toEqual(routers);
    expect(map.usesEmbedded).toBe(fallback === 'embedded');
    if (fallback === 'default') expect(map.routers[1]).toMatchObject({ apiKey: env.LLM_API_KEY ?? '', maxConcurrency: 1, maxQueue: 64 });
  });
});

describe('LLM_BACKENDS: bad files stop start-up naming the file, the model and the field', () => {
  test.each<[string, string, RegExp]>([
    ['no models key', 'backends: {}\n', /missing 'models'/],
    ['an unknown top-level key', 'models: { m: embedded }\ndefault: x\n', /unknown key 'default'/],
    ['an empty map', 'models: {}\n', /models: must NOT have fewer than 1 properties/],
    ['an unknown entry key', 'models:\n  m: { base_url: "http://a:1", apikey: x }\n', /model 'm': unknown key 'apikey'/],
    ['an entry without base_url', 'models:\n  m: { name: a }\n', /model 'm': missing 'base_url'/],
    ['a replica without base_url', 'models:\n  m:\n    - { base_url: "http://a:1" }\n    - { name: b }\n', /model 'm'\[1\]: missing 'base_url'/],
    ['a word other than embedded', 'models:\n  m: local\n', /model 'm': expected 'embedded', an entry/],
    ['an empty replica list', 'models:\n  m: []\n', /model 'm': must NOT have fewer than 1 items/],
    ['a bad max_concurrency', 'models:\n  m: { base_url: "http://a:1", max_concurrency: 0 }\n', /model 'm': max_concurrency: must be >= 1/],
    ['a fractional max_queue', 'models:\n  m: { base_url: "http://a:1", max_queue: 1.5 }\n', /model 'm': max_queue: must be integer/],
    ['an api_key_env that is no variable name', 'models:\n  m: { base_url: "http://a:1", api_key_env: "sk-live-123" }\n', /model 'm': api_key_env: must name an environment variable/],
    ['a base_url that is no URL', 'models:\n  m: { base_url: "gpu-a:8077" }\n', /model 'm': base_url must be an http\(s\) URL|model 'm': base_url is not a valid URL/],
    ['a base_url with a key in it', 'models:\n  m: { base_url: "http://user:sk-secret@a:1" }\n', /model 'm': base_url must not carry credentials/],
    ['a base_url with a query', 'models:\n  m: { base_url: "http://a:1/?key=sk" }\n', /model 'm': base_url must not have a query or fragment/],
    ['one replica twice', 'models:\n  m:\n    - { base_url: "http://a:1" }\n    - { base_url: "http://a:1/" }\n', /model 'm'\[1\]: base_url http:\/\/a:1 is listed twice/],
    ['one base URL with two limits', 'models:\n  m: { base_url: "http://a:1", max_concurrency: 2 }\n  n: { base_url: "http://a:1", max_concurrency: 3 }\n', /model 'n': max_concurrency '3' disagrees with '2' given for the same base_url by model 'm'/],
    ['one name for two base URLs', 'models:\n  m: { base_url: "http://a:1", name: gpu }\n  n: { base_url: "http://b:1", name: gpu }\n', /name 'gpu' is given to two base URLs/],
    ['a reserved name', 'models:\n  m: { base_url: "http://a:1", name: embedded }\n', /name 'embedded' is reserved/],
    ['YAML that does not parse', 'models:\n  m: { base_url: "http://a:1"\n', /is not valid YAML/],
    ['a duplicate model id', 'models:\n  m: embedded\n  m: embedded\n', /is not valid YAML/],
  ])('%s', (_what, text, message) => {
    const err = refusal(text);
    expect(err.variable).toBe('LLM_BACKENDS');
    expect(err.message).toMatch(/^LLM_BACKENDS: \/.*backends-\d+\.yaml: /);
    expect(err.message).toMatch(message);
    // A key in the file is never repeated back.
    expect(err.message).not.toContain('sk-secret');
    expect(err.message).not.toContain('sk-live');
  });

  test('JSON that does not parse', () => {
    expect(refusal('{"models": ', {}, 'json').message).toMatch(/backends-\d+\.json: is not valid JSON/);
  });

  test('a missing file', () => {
    let err: unknown;
    try {
      loadConfig({ LLM_BACKENDS: path.join(dir, 'nope.yaml') }, ROOT);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/^LLM_BACKENDS: .*nope\.yaml: no such file/);
  });

  test('a variable api_key_env names that is not set stops start-up naming that variable, never a value', () => {
    const err = refusal('models:\n  gemma-4-12b: { base_url: "http://a:1", api_key_env: GPU_A_KEY }\n', { GPU_A_KEY: '   ' });
    expect(err.variable).toBe('GPU_A_KEY');
    expect(err.message).toMatch(/^GPU_A_KEY: is not set, and .*backends-\d+\.yaml names it as the api_key_env of model 'gemma-4-12b' \(LLM_BACKENDS\)/);
  });
});
