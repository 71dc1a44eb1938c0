/** RFC 8785 canonical JSON and the SHA-256 digests of the Catalyst evidence (known vectors from the RFC). */
import { canonicalDigest, canonicalJson, sha256Hex } from '../../../server/catalyst/digests';
import { jcs, sha256 } from '../../support/catalyst-contract';

describe('canonicalJson (RFC 8785)', () => {
  test.each<[string, unknown, string]>([
    // RFC 8785 §3.2.2 example: number formatting, string escapes, literals, key order.
    [
      'RFC 8785 §3.2.2 sample',
      { numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001], string: '\u20ac$\u000F\u000aA\'\u0042\u0022\u005c\\"/', literals: [null, true, false] },
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    ],
    // RFC 8785 §3.2.3: keys sorted by UTF-16 code units (a surrogate pair sorts before U+FB33).
    [
      'RFC 8785 §3.2.3 sorting',
      { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' },
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    ],
    ['nested objects and arrays keep array order', { b: [3, 1, { z: 1, a: 2 }], a: {} }, '{"a":{},"b":[3,1,{"a":2,"z":1}]}'],
    ['negative zero and integers', { n: -0, i: 100, e: 1e21, s: 1e-7 }, '{"e":1e+21,"i":100,"n":0,"s":1e-7}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
    // The test's own encoder agrees, so the digests recomputed in integration tests are independent and right.
    expect(jcs(value)).toBe(expected);
  });

  test('digest = SHA-256 hex of the canonical text; key order of the input never changes it', () => {
    const a = { profileId: 'p', role: 'query_generate', config: { temperature: 0, dryMultiplier: 0, maxTokens: 1024 } };
    const b = { config: { maxTokens: 1024, dryMultiplier: 0, temperature: 0 }, role: 'query_generate', profileId: 'p' };
    expect(canonicalDigest(a)).toBe(canonicalDigest(b));
    expect(canonicalDigest(a)).toBe(sha256(jcs(a)));
    expect(canonicalDigest(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalDigest({ ...a, role: 'query_review' })).not.toBe(canonicalDigest(a));
  });

  test('sha256Hex of UTF-8 text (known vectors)', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('€')).toBe(sha256('€'));
  });
});
