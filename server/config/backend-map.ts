/**
 * LLM_BACKENDS: the per-model backend map (a YAML or JSON file). It is read in the settings layer because an
 * entry's `api_key_env` names an environment variable, and only this layer reads the environment. The file is
 * checked whole at start-up; a mistake stops it with one line naming the file, the model id and the field.
 *
 *   models:
 *     gemma-4-12b: { base_url: http://gpu-a:8077, api_key_env: GPU_A_KEY, name: gpu-a }
 *     qwen3.5-9b:                                  # several base URLs: replicas, picked least-busy
 *       - { base_url: http://gpu-b:8077, max_concurrency: 2 }
 *       - { base_url: http://gpu-c:8077 }
 *     gemma-e4b: embedded                          # the in-process engine over MODELS_DIR
 *
 * One base URL is one backend, whichever models name it: its slot limit, key and name are stated once (or
 * repeated identically). A model the file does not name goes where the hub would send it without the file:
 * the router at LLM_BASE_URL, or the embedded engine with LLM_BACKEND=embedded; with neither (LLM_BACKEND=auto
 * and no LLM_BASE_URL) it is not served (model_unavailable, and never forwarded).
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import YAML from 'yaml';
import { compileConstant, constantSchemaAjv } from '../json-schemas';
import { trimEndChars } from '../text-scan';
import { ConfigError, raw, type Env } from './read';

export const EMBEDDED_BACKEND = 'embedded';
/** The router at LLM_BASE_URL when it serves models the file does not name. */
export const DEFAULT_BACKEND = 'default';

/** One HTTP backend (a llama.cpp router or server), however many models name its base URL. */
export interface RouterBackendConfig {
  /** The file's `name`, else the base URL: what discovery, `/` and metrics call it. */
  name: string;
  baseUrl: string;
  /** The value of the variable `api_key_env` names ('' without one); never logged. */
  apiKey: string;
  maxConcurrency: number;
  maxQueue: number;
}

export interface BackendMapConfig {
  /** The file, as resolved (start-up messages name it). */
  file: string;
  /** Every HTTP backend of the file, in the order the file first names it; plus `default` when it serves unnamed models. */
  routers: RouterBackendConfig[];
  /** Model id → the names of the routers serving it (several: replicas), or `embedded`. */
  models: ReadonlyMap<string, readonly string[]>;
  /** Where a model the file does not name goes: a router's name, `embedded`, or null (not served). */
  fallback: string | null;
  /** Whether any model (or the fallback) runs on the embedded engine. */
  usesEmbedded: boolean;
}

/** What the map takes from the other settings: the single-backend choice and the default slot limits. */
export interface BackendMapDefaults {
  llmBackend: 'router' | 'embedded';
  /** True when the single backend was chosen explicitly (LLM_BASE_URL set, or LLM_BACKEND not auto). */
  explicitBackend: boolean;
  llmBaseUrl: string;
  llmApiKey: string;
  maxConcurrency: number;
  maxQueue: number;
}

const ENTRY = {
  type: 'object',
  additionalProperties: false,
  required: ['base_url'],
  properties: {
    base_url: { type: 'string', minLength: 1 },
    api_key_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$' },
    max_concurrency: { type: 'integer', minimum: 1 },
    max_queue: { type: 'integer', minimum: 0 },
  },
} as const;

const PLACEMENT = "'embedded', an entry {base_url, api_key_env?, name?, max_concurrency?, max_queue?} or a list of entries";

/** `if`/`then` rather than `oneOf`, so a bad entry is reported by its own field, not as "matches no branch". */
export const BACKEND_MAP_SCHEMA = {
  $id: 'LlmBackendsFile',
  type: 'object',
  additionalProperties: false,
  required: ['models'],
  properties: {
    models: {
      type: 'object',
      minProperties: 1,
      propertyNames: { type: 'string', minLength: 1, maxLength: 512 },
      additionalProperties: {
        if: { type: 'object' },
        then: ENTRY,
        else: {
          if: { type: 'array' },
          then: { type: 'array', minItems: 1, items: ENTRY },
          else: { const: EMBEDDED_BACKEND, description: PLACEMENT },
        },
      },
    },
  },
} as const;

interface EntryDoc {
  base_url: string;
  api_key_env?: string;
  name?: string;
  max_concurrency?: number;
  max_queue?: number;
}

let validator: ValidateFunction<{ models: Record<string, EntryDoc | EntryDoc[] | 'embedded'> }> | undefined;

/** Compiled on first use: a hub without LLM_BACKENDS never builds it. */
export function backendMapValidator(): NonNullable<typeof validator> {
  validator ??= compileConstant(constantSchemaAjv({ allErrors: false, strict: true }), BACKEND_MAP_SCHEMA);
  return validator;
}

const VARIABLE = 'LLM_BACKENDS';

function fail(file: string, message: string): ConfigError {
  return new ConfigError(VARIABLE, `${file}: ${message}`);
}

function parseFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw fail(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return file.toLowerCase().endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    // The parser's own words name the line; the text itself is not repeated (it may hold a URL with a key).
    throw fail(file, `is not valid ${file.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** `model 'qwen3.5-9b'[1]: max_queue` from the path `/models/qwen3.5-9b/1/max_queue`. */
function errorPlace(at: string[]): string {
  if (at[0] !== 'models' || at.length < 2) return at.join('.') || 'the file';
  const index = at[2] !== undefined && /^\d+$/.test(at[2]) ? `[${at[2]}]` : '';
  const field = at.slice(index ? 3 : 2).join('.');
  return `model '${at[1]}'${index}${field ? `: ${field}` : ''}`;
}

function schemaMessage(e: ErrorObject): string {
  const where = errorPlace(e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')));
  const at = e.instancePath.split('/');
  switch (e.keyword) {
    case 'additionalProperties':
      return `${where}: unknown key '${(e.params as { additionalProperty: string }).additionalProperty}'`;
    case 'required':
      return `${where}: missing '${(e.params as { missingProperty: string }).missingProperty}'`;
    case 'const':
      return `${where}: expected ${PLACEMENT}`;
    case 'pattern':
      return `${where}: ${at.at(-1) === 'api_key_env' ? 'must name an environment variable (letters, digits, _)' : 'must be 1-64 letters, digits, . _ : or -, starting with a letter or digit'}`;
    default:
      return `${where}: ${e.message ?? 'is invalid'}`;
  }
}

/** An http(s) base URL with no credentials, query or fragment (a key goes in api_key_env, never in the URL). */
function baseUrl(file: string, where: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw fail(file, `${where}: base_url is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(file, `${where}: base_url must be an http(s) URL`);
  if (url.username || url.password) throw fail(file, `${where}: base_url must not carry credentials (name a variable in api_key_env)`);
  if (url.search || url.hash) throw fail(file, `${where}: base_url must not have a query or fragment`);
  return `${url.protocol}//${url.host}${trimEndChars(url.pathname, '/')}`;
}

interface Draft {
  baseUrl: string;
  /** The model that first named this base URL (conflict messages name both). */
  firstModel: string;
  fields: { name?: string; api_key_env?: string; max_concurrency?: number; max_queue?: number };
}

/** Reads and checks the LLM_BACKENDS file; `env` resolves each `api_key_env` (a missing one stops start-up, naming it). */
export function loadBackendMap(file: string, env: Env, defaults: BackendMapDefaults): BackendMapConfig {
  const resolved = nodePath.resolve(file);
  if (!fs.existsSync(resolved)) throw fail(resolved, 'no such file');
  const doc = parseFile(resolved);
  const validate = backendMapValidator();
  if (!validate(doc)) throw fail(resolved, schemaMessage((validate.errors ?? [])[0] ?? ({ instancePath: '', keyword: '', message: 'is invalid' } as ErrorObject)));

  const drafts = new Map<string, Draft>();
  const models = new Map<string, string[]>();
  for (const [model, value] of Object.entries(doc.models)) {
    if (value === EMBEDDED_BACKEND) {
      models.set(model, [EMBEDDED_BACKEND]);
      continue;
    }
    const entries = Array.isArray(value) ? value : [value];
    const urls: string[] = [];
    entries.forEach((entry, i) => {
      const where = `model '${model}'${Array.isArray(value) ? `[${i}]` : ''}`;
      const url = baseUrl(resolved, where, entry.base_url);
      if (urls.includes(url)) throw fail(resolved, `${where}: base_url ${url} is listed twice for this model (replicas are distinct backends)`);
      urls.push(url);
      const draft = drafts.get(url) ?? { baseUrl: url, firstModel: model, fields: {} };
      for (const key of ['name', 'api_key_env', 'max_concurrency', 'max_queue'] as const) {
        const given = entry[key];
        if (given === undefined) continue;
        const had = draft.fields[key];
        if (had !== undefined && had !== given) {
          throw fail(resolved, `${where}: ${key} '${String(given)}' disagrees with '${String(had)}' given for the same base_url by model '${draft.firstModel}'`);
        }
        (draft.fields as Record<string, unknown>)[key] = given;
      }
      drafts.set(url, draft);
    });
    models.set(model, urls);
  }

  const routers: RouterBackendConfig[] = [];
  const nameOf = new Map<string, string>();
  for (const d of drafts.values()) {
    const name = d.fields.name ?? d.baseUrl;
    if (name === EMBEDDED_BACKEND || name === DEFAULT_BACKEND) throw fail(resolved, `model '${d.firstModel}': name '${name}' is reserved`);
    if (routers.some((r) => r.name === name)) throw fail(resolved, `model '${d.firstModel}': name '${name}' is given to two base URLs`);
    let apiKey = '';
    if (d.fields.api_key_env !== undefined) {
      const value = raw(env, d.fields.api_key_env);
      if (value === undefined) throw new ConfigError(d.fields.api_key_env, `is not set, and ${resolved} names it as the api_key_env of model '${d.firstModel}' (${VARIABLE})`);
      apiKey = value;
    }
    routers.push({ name, baseUrl: d.baseUrl, apiKey, maxConcurrency: d.fields.max_concurrency ?? defaults.maxConcurrency, maxQueue: d.fields.max_queue ?? defaults.maxQueue });
    nameOf.set(d.baseUrl, name);
  }
  for (const [model, urls] of models) if (urls[0] !== EMBEDDED_BACKEND) models.set(model, urls.map((u) => nameOf.get(u) as string));

  const fallback = fallbackBackend(defaults, routers);
  const usesEmbedded = fallback === EMBEDDED_BACKEND || [...models.values()].some((names) => names[0] === EMBEDDED_BACKEND);
  return { file: resolved, routers, models, fallback, usesEmbedded };
}

/** The single backend the other settings choose, when they choose one; LLM_BASE_URL equal to a file's base URL is that backend. */
function fallbackBackend(defaults: BackendMapDefaults, routers: RouterBackendConfig[]): string | null {
  if (!defaults.explicitBackend) return null;
  if (defaults.llmBackend === 'embedded') return EMBEDDED_BACKEND;
  const same = routers.find((r) => r.baseUrl === defaults.llmBaseUrl);
  if (same) return same.name;
  routers.push({ name: DEFAULT_BACKEND, baseUrl: defaults.llmBaseUrl, apiKey: defaults.llmApiKey, maxConcurrency: defaults.maxConcurrency, maxQueue: defaults.maxQueue });
  return DEFAULT_BACKEND;
}
