/**
 * Hubs on the embedded llama.cpp engine, each in a process of its own (node-llama-cpp is ESM with
 * top-level await and a native addon: it loads in a real Node process, not in jest's module sandbox),
 * over a temporary MODELS_DIR that registers the tiny real GGUF under the catalogue's model ids.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeHubJs, spawnHub, type SpawnedHub } from '../../bench/support/spawn-hub';
import { ROOT } from './hub';

export const TINY_MODEL = path.resolve(ROOT, '../shared/models/tiny-llama2chat.gguf');
/** Every model id the shipped catalogue uses: all served by the tiny model in these tests. */
export const CATALOGUE_MODELS = ['gemma-4-12b', 'qwen2.5-14b', 'qwen3.5-9b', 'gemma-e4b'];

/** Why the engine cannot run here (no prebuilt for this machine, no test model), or null when it can. */
export function embeddedEngineUnavailable(): string | null {
  if (!fs.existsSync(TINY_MODEL)) return `the test model ${TINY_MODEL} is missing`;
  const probe = spawnSync(process.execPath, ['-e', [
    "const { createRequire } = require('node:module');",
    "const entry = createRequire(process.cwd() + '/').resolve('node-llama-cpp');",
    "import(require('node:url').pathToFileURL(entry).href).then((m) => m.getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' }))",
    "  .then(() => process.exit(0), (e) => { console.error(String(e && e.message || e).split('\\n')[0]); process.exit(1); });",
  ].join('\n')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return probe.status === 0 ? null : `the node-llama-cpp linux-x64 CPU prebuilt cannot load here: ${probe.stderr.trim() || `exit ${probe.status}`}`;
}

export interface ModelEntry {
  file: string;
  context_size?: number;
  threads?: number;
}

/** A temporary MODELS_DIR with a models.yaml of `entries` (and extra files, e.g. a corrupt GGUF). */
export function modelsDir(entries: Record<string, ModelEntry>, files: Record<string, string | Buffer> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-models-'));
  const yaml = Object.keys(entries).length === 0 ? '' : ['models:', ...Object.entries(entries).map(([id, e]) => `  ${id}: ${JSON.stringify(e)}`)].join('\n') + '\n';
  if (yaml) fs.writeFileSync(path.join(dir, 'models.yaml'), yaml);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

/** The catalogue's models all mapped to the tiny GGUF. */
export function tinyCatalogueDir(): string {
  return modelsDir(Object.fromEntries(CATALOGUE_MODELS.map((id) => [id, { file: TINY_MODEL, context_size: 4096, threads: 1 }])));
}

export interface EmbeddedHub {
  hub: SpawnedHub;
  traceDir: string;
  traceLines(): Array<Record<string, any>>;
  stop(): Promise<void>;
}

export async function startEmbeddedHub(dir: string, env: Record<string, string> = {}): Promise<EmbeddedHub> {
  const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-embedded-trace-'));
  let hub: SpawnedHub;
  try {
    hub = await spawnHub({
      LLM_BACKEND: 'embedded', MODELS_DIR: dir, EMBEDDED_THREADS: '1', EMBEDDED_MAX_LOADED_MODELS: '4', TEAM_TRACE_DIR: traceDir, HUB_TRACE_FLUSH_MS: '0', ...env,
    }, { inheritEnv: false });
  } catch (err) {
    removeHubJs();
    throw err;
  }
  return {
    hub,
    traceDir,
    traceLines: () => {
      const file = path.join(traceDir, 'trace.jsonl');
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
    },
    async stop() {
      try {
        await hub.stop();
      } finally {
        fs.rmSync(traceDir, { recursive: true, force: true });
      }
    },
  };
}
