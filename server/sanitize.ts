/**
 * Secret and URL sanitiser (hub-contract §2.2 "Sanitisation rules", decision 12). Applied to everything
 * `/v1/models`, logs and traces expose: secret-looking keys become "[redacted]", URLs lose userinfo,
 * query and fragment. Router entries carry CLI `args` and INI `preset` text, so secrets hidden in
 * flag lists (`--api-key K`) and `key = value` lines are caught too.
 */
import { skipJsSpace } from './text-scan';

export const REDACTED = '[redacted]';
export const INVALID_URL = '[redacted-invalid-url]';

/** A key containing one of these words (after splitting) is a secret on its own. */
const SECRET_WORDS = new Set([
  'password', 'passwd', 'passphrase', 'secret', 'credential', 'authorization', 'auth', 'bearer', 'cookie',
  'apikey', 'accesstoken', 'refreshtoken', 'clientsecret', 'privatekey', 'authtoken', 'hft',
]);
/** `<qualifier> key|token` pairs (api key, bearer token, hf_token, …) are secrets; a bare `max_tokens` is not. */
const PAIR_QUALIFIERS = new Set(['api', 'access', 'refresh', 'bearer', 'auth', 'session', 'id', 'private', 'secret', 'client', 'hf', 'signing', 'encryption', 'master']);
const PAIR_HEADS = new Set(['key', 'token']);
/**
 * Any of the words judgeKey accepts, anywhere, case-insensitively: a text holding none cannot carry a
 * secret key (keyWords only splits and lower-cases, so every word it yields is a substring of the key).
 * Built from the same sets, so the two can never disagree.
 */
const SECRET_KEY_HINT = new RegExp([...SECRET_WORDS, ...PAIR_HEADS].join('|'), 'i');

const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;
// Indentation is whitespace other than a line terminator (what `^` under the m flag starts after): with
// `\s*` the match could start at every blank line of a long run of newlines and rescan the whole run
// from each (quadratic — 80,000 newlines in a model answer blocked the event loop for seconds while its
// trace line was written). The separator may still span lines, so `password\n=\nsecret` stays redacted.
// The value starts at a non-space (`\S.*`, not `.*`): the greedy `\s*` before it already took every
// blank, so the match is the same and the two quantifiers share no character.
const INI_LINE = /^([^\S\n\r\u2028\u2029]*)([A-Za-z0-9_.-]+)(\s*[=:]\s*)(?:\S.*)?$/gm;
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;
const BEARER_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const MAX_DEPTH = 64;

/** Splits `apiKey`, `API_KEY`, `x-api-key`, `APIKey` into lower-case words, plurals folded (`keys` → `key`). */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    // `APIKey` → `API Key`: a lookahead, not `([A-Z]+)([A-Z][a-z])`, which rescanned a long capital run from each letter.
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
    .map((w) => (w.length > 3 && /[^s]s$/.test(w) ? w.slice(0, -1) : w));
}

/** Keys repeat across every trace line and model entry: their verdicts are cached (bounded). */
const secretKeyCache = new Map<string, boolean>();
const SECRET_KEY_CACHE_LIMIT = 10_000;

export function isSecretKey(key: string): boolean {
  let verdict = secretKeyCache.get(key);
  if (verdict === undefined) {
    verdict = judgeKey(key);
    if (secretKeyCache.size >= SECRET_KEY_CACHE_LIMIT) secretKeyCache.clear();
    secretKeyCache.set(key, verdict);
  }
  return verdict;
}

function judgeKey(key: string): boolean {
  if (key.toLowerCase() === 'token') return true;
  const words = keyWords(key);
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  return words.some((w, i) => i > 0 && PAIR_HEADS.has(w) && PAIR_QUALIFIERS.has(words[i - 1]));
}

const urlKeyCache = new Map<string, boolean>();

function isUrlKey(key: string): boolean {
  let verdict = urlKeyCache.get(key);
  if (verdict === undefined) {
    const k = key.toLowerCase();
    verdict = k.endsWith('url') || k.endsWith('uri') || k.endsWith('endpoint');
    if (urlKeyCache.size >= SECRET_KEY_CACHE_LIMIT) urlKeyCache.clear();
    urlKeyCache.set(key, verdict);
  }
  return verdict;
}

/** scheme://host[:port]/path — no userinfo, query or fragment; anything unparsable is withheld entirely. */
export function reduceUrl(s: string): string {
  let url: URL;
  try {
    url = new URL(s.trim());
  } catch {
    return INVALID_URL;
  }
  if (!url.host) return INVALID_URL;
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** Free text: embedded URLs reduced, `Bearer x` and secret `key = value` lines (INI presets) redacted. */
function sanitizeText(s: string): string {
  // Cheap scans first: most strings of a trace hold no URL, no credential scheme and no `key = value`.
  let out = s.includes('://') ? s.replace(URL_IN_TEXT, (m) => reduceUrl(m)) : s;
  if (out.includes('Bearer') || out.includes('Basic')) out = out.replace(BEARER_IN_TEXT, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  if (out.includes('=') || out.includes(':')) {
    if (!LINE_TERMINATOR.test(out)) {
      // One line (a source id, a timestamp, a reason): at most one match, the whole text; no replace pass.
      return redactOneIniLine(out);
    }
    out = out.replace(INI_LINE, (line, pre: string, key: string, sep: string) => (isSecretKey(key) ? `${pre}${key}${sep}${REDACTED}` : line));
  }
  return out;
}


function isIniKeyChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === 0x2d;
}

/**
 * INI_LINE on a text without line terminators (where `^` and `$` can only be its ends), read by hand: a
 * trace holds hundreds of one-line `source:id` strings per turn, and the regex's match array and captures
 * for each were a large share of a leg's garbage. The key is the run of key characters after the
 * indentation, the separator the first non-space after it; a test holds this to the regex.
 */
export function redactOneIniLine(s: string): string {
  // A text with no secret word cannot carry a secret key: no key is cut out of it to be judged.
  if (!SECRET_KEY_HINT.test(s)) return s;
  const keyStart = skipJsSpace(s, 0);
  let keyEnd = keyStart;
  while (keyEnd < s.length && isIniKeyChar(s.charCodeAt(keyEnd))) keyEnd++;
  if (keyEnd === keyStart) return s;
  const sep = skipJsSpace(s, keyEnd);
  const c = s.charCodeAt(sep);
  if (c !== 0x3d /* = */ && c !== 0x3a /* : */) return s;
  return isSecretKey(s.slice(keyStart, keyEnd)) ? `${s.slice(0, skipJsSpace(s, sep + 1))}${REDACTED}` : s;
}

/** A CLI flag (`--api-key`, `-hft`, `--api-key=K`) naming a secret: returns the flag name, else null. */
function secretFlag(s: string): { name: string; inlineValue: boolean } | null {
  const m = /^--?([A-Za-z][A-Za-z0-9-]*)(=.*)?$/.exec(s);
  if (!m || !isSecretKey(m[1])) return null;
  return { name: m[1], inlineValue: m[2] !== undefined };
}

/** Arrays of CLI args: the value following a secret flag is redacted wherever it sits. */
function sanitizeArray(arr: unknown[], seen: WeakSet<object>, depth: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < arr.length; i++) {
    const item = arr[i];
    const flag = typeof item === 'string' ? secretFlag(item) : null;
    if (flag?.inlineValue) {
      out.push(`${(item as string).split('=')[0]}=${REDACTED}`);
    } else if (flag && i + 1 < arr.length) {
      out.push(item, REDACTED);
      i++;
    } else {
      out.push(walk(item, seen, depth + 1));
    }
  }
  return out;
}

function sanitizeEntry(key: string, value: unknown, seen: WeakSet<object>, depth: number): unknown {
  if (isSecretKey(key)) return REDACTED;
  if (isUrlKey(key) && typeof value === 'string') return value === '' ? '' : reduceUrl(value);
  return walk(value, seen, depth + 1);
}

/** `fromEntries` defines own properties, so a `__proto__` key from parsed JSON stays data, not a prototype. */
function sanitizeObject(obj: object, seen: WeakSet<object>, depth: number): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).map(([key, value]) => [key, sanitizeEntry(key, value, seen, depth)]));
}

function walk(value: unknown, seen: WeakSet<object>, depth: number): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '[truncated]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return sanitizeArray(value, seen, depth);
    if (value instanceof Date) return value.toISOString();
    if (value instanceof Error) return sanitizeObject({ name: value.name, message: value.message }, seen, depth);
    if (value instanceof URL) return reduceUrl(value.href);
    return sanitizeObject(value, seen, depth);
  } finally {
    // Only cycles are refused; the same object reached twice through siblings is sanitised twice.
    seen.delete(value);
  }
}

/** Deep copy of `value` with secrets redacted and URLs reduced; never throws, never mutates its input. */
export function sanitize(value: unknown): unknown {
  return walk(value, new WeakSet(), 0);
}

/**
 * `JSON.stringify(sanitize(value))` in one pass, without the deep copy: the trace writes a line of
 * tens of kilobytes per turn, so the rules run as a replacer. Same rules, same output (a test pins
 * the equality); anything the replacer cannot take (a cycle) falls back to the copying sanitiser.
 */
export function sanitizedJson(value: unknown): string {
  // Plain data (all a trace line holds) is cleaned copy-on-write and stringified without a replacer:
  // a replacer call per value cost several times the serialisation itself. Anything else takes the
  // replacer, whose output the fast path reproduces (a randomized test pins the equality).
  const plain = cleanPlain(value, 0);
  if (plain !== NOT_PLAIN) return JSON.stringify(plain);
  try {
    return JSON.stringify(value, sanitizingReplacer);
  } catch {
    return JSON.stringify(sanitize(value));
  }
}

const NOT_PLAIN: unique symbol = Symbol('not plain');

/**
 * What the replacer would make of `value`, for plain data only (objects of Object.prototype or none,
 * arrays, primitives but bigint): the same object when nothing changes, else a copy of the changed
 * path. NOT_PLAIN for anything else (Date, Error, toJSON, bigint, or deeper than MAX_DEPTH — cycles).
 */
function cleanPlain(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? NOT_PLAIN : value;
  if (depth > MAX_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) return cleanArray(value, depth);
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  let out: Record<string, unknown> | null = null;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const v = obj[key];
    let c: unknown;
    if (key !== '' && isSecretKey(key)) c = REDACTED;
    else if (key !== '' && typeof v === 'string' && isUrlKey(key)) c = v === '' ? '' : reduceUrl(v);
    else c = cleanPlain(v, depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    if (c !== v && out === null) {
      // A null-prototype copy: a `__proto__` key stays an own data member, in its place.
      out = Object.create(null) as Record<string, unknown>;
      for (let j = 0; j < i; j++) out[keys[j]] = obj[keys[j]];
    }
    if (out !== null) out[key] = c;
  }
  return out ?? obj;
}

function cleanArray(arr: unknown[], depth: number): unknown {
  const items = arr.some((v) => typeof v === 'string' && v.startsWith('-')) ? redactFlagValues(arr) : arr;
  let out: unknown[] | null = items === arr ? null : items;
  for (let i = 0; i < items.length; i++) {
    const c = cleanPlain(items[i], depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    if (c !== items[i] && out === null) out = items.slice();
    if (out !== null) out[i] = c;
  }
  return out ?? arr;
}

function sanitizingReplacer(this: unknown, key: string, value: unknown): unknown {
  // The root (key '') and array items are not named members: only member names can be secret keys.
  if (key !== '' && !Array.isArray(this)) {
    if (isSecretKey(key)) return REDACTED;
    if (isUrlKey(key) && typeof value === 'string') return value === '' ? '' : reduceUrl(value);
  }
  if (typeof value === 'string') return sanitizeText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.some((v) => typeof v === 'string' && v.startsWith('-')) ? redactFlagValues(value) : value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (value instanceof URL) return reduceUrl(value.href);
  return value;
}

/** The CLI-flag rule of sanitizeArray, without recursing (the replacer visits the items next). */
function redactFlagValues(arr: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < arr.length; i++) {
    const item = arr[i];
    const flag = typeof item === 'string' ? secretFlag(item) : null;
    if (flag?.inlineValue) out.push(`${(item as string).split('=')[0]}=${REDACTED}`);
    else if (flag && i + 1 < arr.length) {
      out.push(item, REDACTED);
      i++;
    } else out.push(item);
  }
  return out;
}
