/**
 * sanitizedJson's copy-on-write path for plain data (and sanitizeText's one-line shortcut) against the
 * former implementation, kept here as the oracle: JSON.stringify with the sanitising replacer, whose
 * string rule ran the `key = value` pattern as a global replace on every text holding `=` or `:`.
 */
import { isSecretKey, REDACTED, reduceUrl, sanitize, sanitizedJson } from '../../server/sanitize';
import { lcg } from '../support/random-chart';

const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;
const INI_LINE = /^([^\S\n\r\u2028\u2029]*)([A-Za-z0-9_.-]+)(\s*[=:]\s*)(?:\S.*)?$/gm;
const BEARER_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

function oracleText(s: string): string {
  let out = s.includes('://') ? s.replace(URL_IN_TEXT, (m) => reduceUrl(m)) : s;
  if (out.includes('Bearer') || out.includes('Basic')) out = out.replace(BEARER_IN_TEXT, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  if (out.includes('=') || out.includes(':')) {
    out = out.replace(INI_LINE, (line, pre: string, key: string, sep: string) => (isSecretKey(key) ? `${pre}${key}${sep}${REDACTED}` : line));
  }
  return out;
}

function oracleSecretFlag(s: string): { inlineValue: boolean } | null {
  const m = /^--?([A-Za-z][A-Za-z0-9-]*)(=.*)?$/.exec(s);
  if (!m || !isSecretKey(m[1])) return null;
  return { inlineValue: m[2] !== undefined };
}

function oracleFlags(arr: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < arr.length; i++) {
    const item = arr[i];
    const flag = typeof item === 'string' ? oracleSecretFlag(item) : null;
    if (flag?.inlineValue) out.push(`${(item as string).split('=')[0]}=${REDACTED}`);
    else if (flag && i + 1 < arr.length) {
      out.push(item, REDACTED);
      i++;
    } else out.push(item);
  }
  return out;
}

function oracleUrlKey(key: string): boolean {
  const k = key.toLowerCase();
  return k.endsWith('url') || k.endsWith('uri') || k.endsWith('endpoint');
}

function oracleReplacer(this: unknown, key: string, value: unknown): unknown {
  if (key !== '' && !Array.isArray(this)) {
    if (isSecretKey(key)) return REDACTED;
    if (oracleUrlKey(key) && typeof value === 'string') return value === '' ? '' : reduceUrl(value);
  }
  if (typeof value === 'string') return oracleText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.some((v) => typeof v === 'string' && v.startsWith('-')) ? oracleFlags(value) : value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (value instanceof URL) return reduceUrl(value.href);
  return value;
}

const oracle = (value: unknown): string => JSON.stringify(value, oracleReplacer);

const KEYS = ['role', 'source_id', 'reason', 'apiKey', 'api_key', 'token', 'max_tokens', 'base_url', 'redirectUri', 'models_endpoint', 'password', '__proto__', '', '0', '12', 'args', 'preset', 'note', 'hf_token', 'Authorization', 'included', 'x-api-key'];
const TEXTS = [
  'inline:12', 'recent_core', 'token_budget_after_recent_core', '2026-12-02T07:00:17.429Z', 'api-key = sekrit', '  password: hunter2', '\tpassword:',
  'ctx-size = 1024', 'api-key = a\nctx = 2', 'token:x', 'token :  y z', 'note: keep me', 'client_secret\n=\nabc', 'a\u2028password: p', 'lone\rtoken: t',
  'see https://a:b@docs.example/page?token=1 for details', 'sent Authorization: Bearer abc.def', 'Basic dXNlcjpwYXNz', '--api-key', '--hf-token=abc', '-hft', '-n',
  'http://u:p@h:1/x?q=1', 'garbage', '', ' ', ':', '=', 'key=', 'Weight (kg): 71 kg', '\u00a0token: t', 'é: ü', 'API_KEY=1', 'secret.value = 3',
];

function randomValue(rand: () => number, depth: number): unknown {
  const r = rand();
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  if (depth > 4 || r < 0.35) return pick(TEXTS) + (rand() < 0.2 ? pick(TEXTS) : '');
  if (r < 0.45) return pick([0, 1.5, -3, Number.NaN, Number.POSITIVE_INFINITY, true, false, null, undefined]);
  if (r < 0.47) return pick([new Date(0), new Error('boom http://u:p@h/x'), BigInt(7), new URL('http://u:p@h/y?z')]);
  if (r < 0.7) return Array.from({ length: Math.floor(rand() * 6) }, () => randomValue(rand, depth + 1));
  const obj: Record<string, unknown> = Object.create(rand() < 0.1 ? null : Object.prototype) as Record<string, unknown>;
  const n = Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) Object.defineProperty(obj, pick(KEYS), { value: randomValue(rand, depth + 1), enumerable: true, configurable: true, writable: true });
  return obj;
}

describe('sanitizedJson fast path equals the replacer it replaced', () => {
  test('on 3000 random values (secret, URL and flag rules, prototypes, dates, errors, bigint)', () => {
    const rand = lcg(20261202);
    for (let i = 0; i < 3000; i++) {
      const value = randomValue(rand, 0);
      expect(sanitizedJson(value)).toBe(oracle(value));
    }
  });

  test('on texts alone (the one-line shortcut)', () => {
    for (const a of TEXTS) for (const b of TEXTS) expect(sanitize(`${a}${b}`)).toBe(oracleText(`${a}${b}`));
  });

  test('a deep (beyond 64 levels) plain value takes the replacer path with the same output', () => {
    let deep: Record<string, unknown> = { token: 't', note: 'api-key = x' };
    for (let i = 0; i < 80; i++) deep = { next: deep, source_id: `inline:${i}` };
    expect(sanitizedJson(deep)).toBe(oracle(deep));
  });

  test('unchanged plain data is not copied, and a changed member leaves its input intact', () => {
    const input = { a: { source_id: 'inline:1' }, list: ['--api-key', 'k'], base_url: 'http://u:p@h/x?q' };
    const before = JSON.stringify(input);
    expect(sanitizedJson(input)).toBe(oracle(input));
    expect(JSON.stringify(input)).toBe(before);
  });
});
