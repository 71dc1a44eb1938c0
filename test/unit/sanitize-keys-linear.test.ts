/**
 * The sanitiser stays linear on long runs: a key's capital run was split with `([A-Z]+)([A-Z][a-z])`,
 * retried from each capital (quadratic: 50,000 capitals ≈1.3 s), and the `key = value` scan's value
 * quantifier overlapped the separator's blanks. The results are the former ones.
 */
import { isSecretKey, keyWords, sanitize, sanitizedJson } from '../../server/sanitize';
import { RUN_LENGTH, RUN_ROWS } from '../support/blank-runs';

describe('keyWords on 50,000 capitals', () => {
  const caps = 'A'.repeat(RUN_LENGTH);
  test.each<[string, string, string[]]>([
    ['no lower case after the run (rejecting suffix)', `${caps}1`, [`${'a'.repeat(RUN_LENGTH)}1`]],
    ['a word after the run', `${caps}Key`, ['a'.repeat(RUN_LENGTH), 'key']],
    ['runs between words', `x${caps}Token${caps}`, ['x', 'a'.repeat(RUN_LENGTH), 'token', 'a'.repeat(RUN_LENGTH)]],
  ])('%s', (_case, key, expected) => {
    expect(keyWords(key)).toEqual(expected);
  });

  test('a secret pair after a capital run is still a secret key', () => {
    expect(isSecretKey(`${caps}_APIKey`)).toBe(true);
    expect(isSecretKey(`${caps}MaxTokens`)).toBe(false);
  });
});

describe.each(RUN_ROWS)('key = value lines with 50,000 %s', (_name, { run }) => {
  test.each<[string, string, string]>([
    ['a run in the separator', `password:${run}hunter2`, `password:${run}[redacted]`],
    ['a run then a value ending in a line break', `api_key =${run}v\u2028next`, `api_key =${run}[redacted]\u2028next`],
    ['a run before the key', `${run}token: t`, `${run}token: [redacted]`],
    ['a run after a key without a separator (rejecting suffix)', `password${run}x`, `password${run}x`],
    ['a run after a harmless key', `note:${run}keep`, `note:${run}keep`],
  ])('%s', (_case, text, expected) => {
    expect((sanitize({ preset: text }) as { preset: string }).preset).toBe(expected);
    expect(JSON.parse(sanitizedJson({ preset: text })).preset).toBe(expected);
  });
});
