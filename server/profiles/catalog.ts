/**
 * The loaded profile catalogue: levels.yaml compiled once at start-up, plus model-id resolution
 * (low-level legs first, then yaml ids; §4.5) and prompt reads that see an edit within a second
 * without touching the disk on the request path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { HubError } from '../errors';
import { aliasIndex } from './aliases';
import { compileProfiles, findMissingPrompt, ProfileConfigError } from './compiler';
import { parseLeg } from './legs';
import { PROMPT_STEM_PATTERN } from './levels-schema';
import type { Profile } from './types';

export interface Catalog {
  /** yaml order (the order of /v1/models). */
  readonly profiles: readonly Profile[];
  /** Absolute prompt directory. */
  readonly promptsDir: string;
  /** The profile with this canonical id (aliases are not ids). */
  get(id: string): Profile | undefined;
  /**
   * Leg, yaml profile or alias for a request `model`; an alias gives the canonical profile, so the turn
   * runs and is traced as that profile. Anything else is model_not_found (never forwarded).
   */
  resolve(model: string): Profile;
  /** `<promptsDir>/<stem>.txt`: prompt edits apply without a restart (within PROMPT_RECHECK_MS). */
  readPrompt(stem: string): string;
}

const STEM_RE = new RegExp(PROMPT_STEM_PATTERN);

export function loadCatalog(opts: { profilesPath: string; promptsDir: string; promptRecheckMs?: number }): Catalog {
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
  return makeCatalog(Object.freeze(profiles), promptsDir, opts.promptRecheckMs ?? PROMPT_RECHECK_MS);
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

/** Compiled legs kept (the oldest goes first): bounded, since leg ids come from clients. */
const LEG_CACHE_LIMIT = 256;

function makeCatalog(profiles: readonly Profile[], promptsDir: string, recheckMs: number): Catalog {
  const prompts = new PromptFiles(recheckMs);
  const byId = new Map(profiles.map((p) => [p.id, p]));
  const byAlias = aliasIndex(profiles);
  const configuredProfiles = profiles.map((p) => p.id);

  const notFound = (model: string, message: string, extra: Record<string, unknown> = {}) =>
    new HubError('model_not_found', message, { extra: { model, configured_profiles: configuredProfiles, ...extra } });

  // Compiled legs by id: a client sends the same few legs again and again, and each is a frozen plan.
  const legs = new Map<string, Profile>();
  const compiledLeg = (model: string): Profile | null => {
    const known = legs.get(model);
    if (known) return known;
    const leg = parseLeg(model);
    if (leg) {
      if (legs.size >= LEG_CACHE_LIMIT) legs.delete(legs.keys().next().value as string);
      legs.set(model, leg);
    }
    return leg;
  };

  const resolveLeg = (model: string): Profile | null => {
    let leg: Profile | null;
    try {
      leg = compiledLeg(model);
    } catch (err) {
      if (err instanceof HubError) throw notFound(model, err.message);
      throw err;
    }
    if (!leg) return null;
    // Decision 21: a leg naming a missing prompt is refused before any router call.
    const missing = findMissingPrompt(leg, promptsDir, (file) => prompts.exists(file));
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
      const found = resolveLeg(model) ?? byId.get(model) ?? byAlias.get(model);
      if (found) return found;
      throw notFound(model, `model '${model}' is not a configured profile or valid low-level leg`);
    },
    readPrompt(stem: string): string {
      // Stems are validated at compile/parse time; re-check so no caller can read outside the directory.
      if (!STEM_RE.test(stem)) throw new HubError('prompt_unavailable', `invalid prompt name '${stem}'`);
      const text = prompts.read(path.join(promptsDir, `${stem}.txt`));
      if (text === null) throw new HubError('prompt_unavailable', `prompt file '${stem}.txt' could not be read`);
      return text;
    },
  });
}

/** How often, at most, a known prompt file is looked at again (in the background) for an edit. */
export const PROMPT_RECHECK_MS = 1000;

interface KnownPrompt {
  text: string;
  ino: number;
  size: number;
  mtimeNs: bigint;
  checkedAt: number;
  checking: boolean;
}

/**
 * Prompt texts kept by file identity (inode, size, modification time). A request never touches the disk for
 * a prompt already read: the text is served from memory, and at most once per PROMPT_RECHECK_MS an
 * asynchronous stat looks for an edit (and re-reads the file only when it changed), so an edit applies
 * within about a second, without a restart. Only a prompt not yet read is read synchronously, once.
 */
class PromptFiles {
  private readonly texts = new Map<string, KnownPrompt>();

  constructor(private readonly recheckMs: number) {}

  /** The file's text, or null when it is not a readable file. */
  read(file: string): string | null {
    const known = this.texts.get(file);
    if (known) {
      this.recheck(file, known);
      return known.text;
    }
    return this.readNow(file);
  }

  /** Whether the file is a prompt that can be read (a known one without touching the disk). */
  exists(file: string): boolean {
    return this.read(file) !== null;
  }

  private readNow(file: string): string | null {
    try {
      const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
      if (!stat?.isFile()) return null;
      const text = fs.readFileSync(file, 'utf8');
      this.texts.set(file, { text, ino: Number(stat.ino), size: Number(stat.size), mtimeNs: stat.mtimeNs, checkedAt: performance.now(), checking: false });
      return text;
    } catch {
      this.texts.delete(file);
      return null;
    }
  }

  private recheck(file: string, known: KnownPrompt): void {
    if (known.checking || performance.now() - known.checkedAt < this.recheckMs) return;
    known.checking = true;
    void (async () => {
      try {
        const stat = await fs.promises.stat(file, { bigint: true });
        if (!stat.isFile()) {
          this.texts.delete(file);
          return;
        }
        if (known.ino === Number(stat.ino) && known.size === Number(stat.size) && known.mtimeNs === stat.mtimeNs) return;
        const text = await fs.promises.readFile(file, 'utf8');
        if (this.texts.get(file) === known) this.texts.set(file, { text, ino: Number(stat.ino), size: Number(stat.size), mtimeNs: stat.mtimeNs, checkedAt: performance.now(), checking: false });
      } catch {
        // Gone or unreadable: forgotten, so the next call reads it (and reports it) afresh.
        if (this.texts.get(file) === known) this.texts.delete(file);
      } finally {
        known.checking = false;
        known.checkedAt = performance.now();
      }
    })();
  }
}
