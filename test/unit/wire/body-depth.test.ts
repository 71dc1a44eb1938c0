/**
 * The raw-bytes depth check refuses what the parsed-body check refuses, naming the same field, without
 * parsing: a 100,000-level body held the event loop for 50–80 ms in JSON.parse alone.
 */
import { MAX_BODY_DEPTH, tooDeepField, tooDeepFieldInBytes } from '../../../server/wire/body-depth';

const bytes = (s: string) => Buffer.from(s, 'utf8');
const nestArrays = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
const nestObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('tooDeepFieldInBytes', () => {
  test.each([
    ['a flat chat body', '{"model":"m","messages":[{"role":"user","content":"hi"}]}', null],
    ['a field at exactly the limit', `{"x":${nestArrays(MAX_BODY_DEPTH - 1)}}`, null],
    ['a field one level over the limit', `{"x":${nestArrays(MAX_BODY_DEPTH)}}`, 'x'],
    ['objects over the limit in the second field', `{"model":"m","context":${nestObjects(MAX_BODY_DEPTH + 5)}}`, 'context'],
    ['100,000 levels', `{"patient":${nestArrays(100_000)}}`, 'patient'],
    ['brackets inside strings do not count', `{"content":"${'['.repeat(1000)}"}`, null],
    ['escaped quotes keep the string open', `{"content":"\\"${'['.repeat(1000)}\\""}`, null],
    ['an escaped key name is decoded', `{"\\u0070atient":${nestArrays(MAX_BODY_DEPTH)}}`, 'patient'],
    ['a __proto__ key is named as data', `{"__proto__":${nestArrays(MAX_BODY_DEPTH)}}`, '__proto__'],
    ['a top-level array is the body itself', nestArrays(MAX_BODY_DEPTH + 1), ''],
    ['non-ASCII text around brackets', `{"content":"é€😀","x":${nestArrays(MAX_BODY_DEPTH)}}`, 'x'],
    ['malformed JSON within the bound is left to the parser', '{"x":[[[', null],
  ])('%s', (_name, body, expected) => {
    expect(tooDeepFieldInBytes(bytes(body), MAX_BODY_DEPTH)).toBe(expected);
  });

  test('agrees with the parsed-body check on 2,000 random bodies', () => {
    let x = 11;
    const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 0 && r < 0.5) return rand() < 0.8 ? [value(depth - 1)] : [7, value(depth - 1), 's'];
      if (depth > 0 && r < 0.985) return { [`k${Math.floor(rand() * 3)}`]: value(depth - 1), s: '[{"' };
      return rand() < 0.5 ? 'a]}"\\' : 7;
    };
    let refused = 0;
    for (let i = 0; i < 2000; i++) {
      const body = { model: 'm', [`f${i % 5}`]: value(MAX_BODY_DEPTH - 8 + Math.floor(rand() * 16)) };
      const text = JSON.stringify(body);
      const expected = tooDeepField(JSON.parse(text));
      if (expected !== null) refused++;
      expect({ text: text.slice(0, 80), got: tooDeepFieldInBytes(bytes(text), MAX_BODY_DEPTH) }).toEqual({ text: text.slice(0, 80), got: expected });
    }
    // Both sides of the bound were exercised.
    expect(refused).toBeGreaterThan(200);
    expect(refused).toBeLessThan(1800);
  });
});
