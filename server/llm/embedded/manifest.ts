/**
 * The models the embedded engine may serve: `MODELS_DIR/models.yaml` (router model id → GGUF file and its
 * settings) plus every `MODELS_DIR/<model id>.gguf` the manifest does not already name. Read once at start-up;
 * a malformed manifest or a missing file is reported (never a crash), so the inventory can say what to fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import { compileConstant, constantSchemaAjv } from '../../json-schemas';
import YAML from 'yaml';

export const MANIFEST_FILE = 'models.yaml';

export interface ModelSpec {
  /** The router model id profiles name (`gemma-4-12b`). */
  id: string;
  /** Absolute path of the GGUF file. */
  file: string;
  /** Tokens per sequence; null = the model's training context, capped at DEFAULT_MAX_CONTEXT. */
  contextSize: number | null;
  threads: number;
  gpuLayers: number;
  /** Full-size KV cache for sliding-window-attention models (prefix reuse needs it, router.md `--swa-full`). */
  swaFull: boolean;
  /** Why this model cannot be served before anything is loaded (a missing file), else null. */
  problem: string | null;
}

export interface ModelCatalog {
  dir: string;
  specs: ModelSpec[];
  /** Problems of the folder or its manifest as a whole (no folder, a malformed manifest). */
  problems: string[];
}

export interface ManifestDefaults {
  threads: number;
}

interface ManifestEntry {
  file: string;
  context_size?: number;
  threads?: number;
  gpu_layers?: number;
  swa_full?: boolean;
}

const MODEL_ID = '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$';

const MANIFEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['models'],
  properties: {
    models: {
      type: 'object',
      propertyNames: { pattern: MODEL_ID },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['file'],
        properties: {
          file: { type: 'string', minLength: 1 },
          context_size: { type: 'integer', minimum: 256 },
          threads: { type: 'integer', minimum: 1, maximum: 256 },
          gpu_layers: { type: 'integer', minimum: 0 },
          swa_full: { type: 'boolean' },
        },
      },
    },
  },
} as const;

const validateManifest = compileConstant<{ models: Record<string, ManifestEntry> }>(constantSchemaAjv({ allErrors: true }, 'draft-07'), MANIFEST_SCHEMA);

function ajvProblems(): string {
  return (validateManifest.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
}

function readManifest(dir: string, problems: string[]): Record<string, ManifestEntry> {
  const file = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = YAML.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    problems.push(`${file} is not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : 'parse error'}); its models are ignored.`);
    return {};
  }
  if (!validateManifest(parsed)) {
    problems.push(`${file} does not match the manifest format (${ajvProblems()}); its models are ignored.`);
    return {};
  }
  return parsed.models;
}

function specFrom(dir: string, id: string, entry: ManifestEntry, defaults: ManifestDefaults): ModelSpec {
  const file = path.resolve(dir, entry.file);
  let problem: string | null = null;
  if (!fs.existsSync(file)) problem = `the GGUF file ${file} named for '${id}' in ${MANIFEST_FILE} does not exist`;
  else if (!fs.statSync(file).isFile()) problem = `${file} named for '${id}' in ${MANIFEST_FILE} is not a file`;
  return {
    id,
    file,
    contextSize: entry.context_size ?? null,
    threads: entry.threads ?? defaults.threads,
    gpuLayers: entry.gpu_layers ?? 0,
    swaFull: entry.swa_full ?? true,
    problem,
  };
}

/** Reads MODELS_DIR: manifest entries first (in file order), then `<id>.gguf` files in name order. */
export function readModelCatalog(modelsDir: string, defaults: ManifestDefaults): ModelCatalog {
  const dir = path.resolve(modelsDir);
  const problems: string[] = [];
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    return { dir, specs: [], problems: [`MODELS_DIR ${dir} does not exist`] };
  }
  const manifest = readManifest(dir, problems);
  const specs = Object.entries(manifest).map(([id, entry]) => specFrom(dir, id, entry, defaults));
  const named = new Set(specs.map((s) => s.id));
  // A file the manifest maps to an id is served under that id only.
  const mapped = new Set(specs.map((s) => s.file));
  const files = fs.readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.gguf')).sort();
  const idPattern = new RegExp(MODEL_ID);
  for (const f of files) {
    const id = f.slice(0, -'.gguf'.length);
    if (named.has(id) || mapped.has(path.join(dir, f)) || !idPattern.test(id)) continue;
    specs.push(specFrom(dir, id, { file: f }, defaults));
  }
  return { dir, specs, problems };
}

/** The file `<id>.gguf` in MODELS_DIR that serves model `id` without a manifest entry (null: the id cannot be a file name). */
export function expectedModelFile(dir: string, id: string): string | null {
  return id.includes('/') || id.startsWith('.') ? null : path.join(dir, `${id}.gguf`);
}

/** Where model `id` goes, named exactly: its file, or the manifest entry that maps it to one. */
export function missingModelAdvice(dir: string, id: string): string {
  const file = expectedModelFile(dir, id);
  const manifest = path.join(dir, MANIFEST_FILE);
  const put = file ? `Put its GGUF file at ${file}, or map '${id}' to a file in ${manifest}` : `Map '${id}' to a GGUF file in ${manifest}`;
  return `${put}; or set LLM_BASE_URL to use a llama.cpp router.`;
}

/** What to do when no model can be served: the same sentence on `/`, `/health`, `/v1/models` and errors. */
export function noModelAdvice(dir: string): string {
  return `Put a GGUF model in ${dir} named <model id>.gguf (the model id a profile uses, e.g. gemma-4-12b.gguf), ` +
    `or map model ids to files in ${path.join(dir, MANIFEST_FILE)}; or set LLM_BASE_URL to use a llama.cpp router.`;
}
