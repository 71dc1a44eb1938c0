/** normaliseForMatch (§7.3 step 6): the one normalisation both sides of a reviewer quote go through. */
import { normaliseForMatch } from '../../../../server/checks/review/normalise';
import { extractJsonObject } from '../../../../server/checks/review/json';

describe('normaliseForMatch', () => {
  test.each<[string, string, string]>([
    ['full-width digits and letters (NFKC)', 'Ｗｅｉｇｈｔ ７４ kg', 'weight 74 kg'],
    ['full-width citation marker', 'Weight 74 kg［２］.', 'weight 74 kg.'],
    ['case folded', 'CD4 Count WAS 350', 'cd4 count was 350'],
    ['single marker with its leading space', 'Weight was 71 kg [3].', 'weight was 71 kg.'],
    ['grouped marker', 'Weight fell [3, 4] since March', 'weight fell since march'],
    ['adjacent markers', 'Seen twice [1][2].', 'seen twice.'],
    ['semicolon group', 'Seen [1; 2] twice', 'seen twice'],
    ['whitespace collapsed and trimmed', '  weight \n\t was   71 kg  ', 'weight was 71 kg'],
    ['non-numeric brackets kept', 'Finding [administrative] note', 'finding [administrative] note'],
    ['marker-only text is empty', ' [3] ', ''],
  ])('%s', (_name, input, expected) => {
    expect(normaliseForMatch(input)).toBe(expected);
  });

  test('a quote without markers matches the answer with markers', () => {
    expect(normaliseForMatch('The latest weight was 71 kg [1] on 2026-03-02 [1].')).toContain(normaliseForMatch('71 KG on 2026-03-02.'));
  });
});

describe('extractJsonObject', () => {
  test.each<[string, string, Record<string, unknown> | null]>([
    ['raw', '{"a":1}', { a: 1 }],
    ['fenced json', 'Here:\n```json\n{"a":2}\n```\nDone.', { a: 2 }],
    ['fenced without language', '```\n{"a":3}\n```', { a: 3 }],
    ['prose-wrapped', 'Verdict: {"a":4} — end', { a: 4 }],
    ['stray brace after the object', 'Verdict: {"a":5} and a stray }', { a: 5 }],
    ['braces inside strings', 'x {"a":"}{"} y', { a: '}{' }],
    ['array is not an object', '[1,2]', null],
    ['not json', 'no json here', null],
    ['unbalanced', '{"a": 1', null],
  ])('%s', (_name, text, expected) => {
    expect(extractJsonObject(text)).toEqual(expected);
  });
});
