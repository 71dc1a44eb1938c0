/**
 * The loaded profile catalogue: levels.yaml compiled once at start-up, plus model-id resolution
 * (low-level legs first, then yaml ids; §4.5) and prompt reads that see every edit (§4.1) without
 * reading the file on every call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { HubError } from '../errors';
import { compileProfiles, findMissingPrompt, ProfileConfigError } from './compiler';
import { parseLeg } from './legs';
import { PROMPT_STEM_PATTERN } from './levels-schema';
import type { Profile } from './types';

export interface Catalog {
  /** yaml order (the order of /v1/models). */
  readonly profiles: readonly Profile[];
  /** Absolute prompt directory. */
  readonly promptsDir: string;
  get(id: string): Profile | undefined;
  /** Leg or yaml profile for a request `model`; anything else is model_not_found (never forwarded). */
  resolve(model: string): Profile;
  /** `<promptsDir>/<stem>.txt` as it is now: prompt edits apply without a restart. */
  readPrompt(stem: string): string;
}

const STEM_RE = new RegExp(PROMPT_STEM_PATTERN);

export function loadCatalog(opts: { profilesPath: string; promptsDir: string }): Catalog {
  const promptsDir = path.resolve(opts.promptsDir);
  const doc = readYaml(opts.profilesPath);
  let profiles: Profile[];
  try {
    profiles = compileProfiles(doc, { promptsDir });
  } catch (err) {
    // Name the file so an operator knows which catalogue stopped start-up.
    if (err instanceof ProfileConfigError) throw new ProfileConfigError(`${opts.profilesPath}: ${err.message}`, err.profileId);
    throw err;
  }
  return makeCatalog(Object.freeze(profiles), promptsDir);
}

function readYaml(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ProfileConfigError(`cannot read profile catalogue '${file}': ${(err as Error).message}`);
  }
  // `merge` enables `<<: *anchor` so variants can share policy blocks; duplicate ids are errors.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { merge: true, prettyErrors: false, uniqueKeys: true, lineCounter });
  const error = doc.errors[0];
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new ProfileConfigError(`${file}:${line}:${col}: YAML syntax error at line ${line}, column ${col}: ${error.message}`);
  }
  try {
    // maxAliasCount bounds alias expansion (a "billion laughs" file cannot exhaust memory).
    return doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    throw new ProfileConfigError(`${file}: YAML error: ${(err as Error).message}`);
  }
}

function makeCatalog(profiles: readonly Profile[], promptsDir: string): Catalog {
  const prompts = new PromptFiles();
  const byId = new Map(profiles.map((p) => [p.id, p]));
  const configuredProfiles = profiles.map((p) => p.id);

  const notFound = (model: string, message: string, extra: Record<string, unknown> = {}) =>
    new HubError('model_not_found', 404, message, { extra: { model, configured_profiles: configuredProfiles, ...extra } });

  const resolveLeg = (model: string): Profile | null => {
    let leg: Profile | null;
    try {
      leg = parseLeg(model);
    } catch (err) {
      if (err instanceof HubError) throw notFound(model, err.message);
      throw err;
    }
    if (!leg) return null;
    // Decision 21: a leg naming a missing prompt is refused before any router call.
    const missing = findMissingPrompt(leg, promptsDir);
    if (missing) {
      throw notFound(model, `model '${model}': prompt '${missing.stem}' does not exist (no ${missing.file}.txt in the prompt directory)`, { prompt: missing.stem });
    }
    return leg;
  };

  return Object.freeze({
    profiles,
    promptsDir,
    get: (id: string) => byId.get(id),
    resolve(model: string): Profile {
      const found = resolveLeg(model) ?? byId.get(model);
      if (found) return found;
      throw notFound(model, `model '${model}' is not a configured profile or valid low-level leg`);
    },
    readPrompt(stem: string): string {
      // Stems are validated at compile/parse time; re-check so no caller can read outside the directory.
      if (!STEM_RE.test(stem)) throw new HubError('prompt_unavailable', 500, `invalid prompt name '${stem}'`);
      const text = prompts.read(path.join(promptsDir, `${stem}.txt`));
      if (text === null) throw new HubError('prompt_unavailable', 500, `prompt file '${stem}.txt' could not be read`);
      return text;
    },
  });
}

/**
 * Prompt texts kept by file identity (inode, size, modification time): one stat per call tells whether
 * the file changed, so an edit applies at the next call while an unchanged prompt is never read again.
 */
class PromptFiles {
  private readonly texts = new Map<string, { text: string; ino: number; size: number; mtimeNs: bigint }>();

  /** The file's text, or null when it is not a readable file. */
  read(file: string): string | null {
    let stat: fs.BigIntStats | undefined;
    try {
      stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (!stat?.isFile()) {
      this.texts.delete(file);
      return null;
    }
    const known = this.texts.get(file);
    if (known && known.ino === Number(stat.ino) && known.size === Number(stat.size) && known.mtimeNs === stat.mtimeNs) return known.text;
    try {
      const text = fs.readFileSync(file, 'utf8');
      this.texts.set(file, { text, ino: Number(stat.ino), size: Number(stat.size), mtimeNs: stat.mtimeNs });
      return text;
    } catch {
      this.texts.delete(file);
      return null;
    }
  }
}
