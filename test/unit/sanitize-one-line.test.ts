/**
 * The one-line `key = value` redaction, read by hand (sanitize.ts `redactOneIniLine`), gives what the
 * regex it replaced gives: a table of edge cases, then seeded random one-line texts.
 */
import { isSecretKey, REDACTED, redactOneIniLine } from '../../server/sanitize';
import { Rng } from '../support/fuzz/rng';

const INI_ONE_LINE = /^([^\S\n\r\u2028\u2029]*)([A-Za-z0-9_.-]+)(\s*[=:]\s*)(?:\S.*)?$/;

function byRegex(s: string): string {
  const m = INI_ONE_LINE.exec(s);
  return m && isSecretKey(m[2]) ? `${m[1]}${m[2]}${m[3]}${REDACTED}` : s;
}

describe('one-line key = value redaction, by hand', () => {
  test.each([
    'password=hunter2',
    '  api_key : abc',
    'API-KEY:\u00a0\u3000abc',
    'token=',
    'token =   ',
    'inline:12',
    'knowledge-base:who-hiv-2021',
    '2026-12-06T02:08:16.576Z',
    'secret:=x',
    'secret==x',
    'pass word=x',
    '\ufeffpassword=x',
    '=password',
    ':',
    '',
    '   ',
    'password',
    'auth.token: Bearer-ish',
    'client_secret\t=\tvalue with spaces',
  ])('%j', (s) => {
    expect(redactOneIniLine(s)).toBe(byRegex(s));
  });

  test('seeded random one-line texts redact as the regex does', () => {
    const parts = ['password', 'api', '_', 'key', 'token', 'inline', '12', '.', '-', '=', ':', ' ', '\t', '\u00a0', '\u3000', '\ufeff', 'é', 'x', '"'];
    const differ: unknown[] = [];
    for (const seed of [7, 8]) {
      const rng = new Rng(seed);
      for (let i = 0; i < 5000; i++) {
        const s = Array.from({ length: rng.int(0, 7) }, () => rng.pick(parts)).join('');
        if (redactOneIniLine(s) !== byRegex(s)) differ.push({ seed, i, s, hand: redactOneIniLine(s), regex: byRegex(s) });
      }
    }
    expect(differ).toEqual([]);
  });
});
