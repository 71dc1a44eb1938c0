/** In-Depth review verdicts that flag, never drop (§7.6, §7.7 Target). */
import {
  DEFAULT_FLAG_NOTE,
  flagNotes,
  INDEPTH_VERDICT_RESPONSE_FORMAT,
  numberedClaims,
  parseInDepthVerdict,
} from '../../../../server/checks/review/indepth-review';

describe('parseInDepthVerdict', () => {
  test.each<[string, string, number, { drop: number[]; issues: string }]>([
    ['clean', '{"drop": [], "issues": ""}', 3, { drop: [], issues: '' }],
    ['fenced', '```json\n{"drop": [2], "issues": "2: wrong date"}\n```', 3, { drop: [2], issues: '2: wrong date' }],
    ['prose-wrapped', 'Audit: {"drop": [1]} done', 3, { drop: [1], issues: '' }],
    ['out of range discarded', '{"drop": [0, 1, 4, -2, 99]}', 3, { drop: [1], issues: '' }],
    ['deduped and sorted', '{"drop": [3, 1, 3, 1, 2]}', 3, { drop: [1, 2, 3], issues: '' }],
    ['non-integers ignored', '{"drop": [1.5, "2", null, {"n": 3}, 3]}', 3, { drop: [3], issues: '' }],
    ['no claims ⇒ nothing in range', '{"drop": [1]}', 0, { drop: [], issues: '' }],
    ['issues as a list of strings', '{"drop": [1, 2], "issues": ["1: a", 7, "2: b"]}', 3, { drop: [1, 2], issues: '1: a\n2: b' }],
    ['issues non-string ⇒ empty', '{"drop": [1], "issues": 5}', 3, { drop: [1], issues: '' }],
  ])('%s', (_name, content, n, expected) => {
    expect(parseInDepthVerdict(content, n)).toEqual(expected);
  });

  test.each<[string, string]>([
    ['drop missing', '{"issues": "1: bad"}'],
    ['drop not a list', '{"drop": 2}'],
    ['drop a string', '{"drop": "1,2"}'],
    ['not json', 'Claims 1 and 2 are wrong.'],
    ['empty', ''],
  ])('malformed: %s ⇒ null', (_name, content) => {
    expect(parseInDepthVerdict(content, 3)).toBeNull();
  });
});

describe('flagNotes', () => {
  test.each<[string, number[], string, Array<[number, string]>]>([
    ['colon', [2], '2: the date is 2026-01-10, not 2026-01-11', [[2, 'the date is 2026-01-10, not 2026-01-11']]],
    ['full stop', [1], '1. weight was 71 kg', [[1, 'weight was 71 kg']]],
    ['paren', [3], '3) no record supports this', [[3, 'no record supports this']]],
    ['Claim N -', [2], 'Claim 2 - dose is 500 mg', [[2, 'dose is 500 mg']]],
    ['Claim N: bulleted', [2], '- Claim 2: dose is 500 mg', [[2, 'dose is 500 mg']]],
    ['Claim N without separator', [1], 'Claim 1 states a trend from one value', [[1, 'states a trend from one value']]],
    ['several lines, unflagged line ignored', [1, 3], '1: a\n2: b\n3: c', [[1, 'a'], [3, 'c']]],
    ['semicolon-joined', [1, 2], '1: wrong unit; 2: wrong date', [[1, 'wrong unit'], [2, 'wrong date']]],
    ['flagged without its own line ⇒ default', [1, 2], '2: wrong date', [[1, DEFAULT_FLAG_NOTE], [2, 'wrong date']]],
    ['unnumbered issues ⇒ default', [1], 'The weight is wrong.', [[1, DEFAULT_FLAG_NOTE]]],
    ['a decimal is not a claim number', [2], '2.5 kg is not in the chart', [[2, DEFAULT_FLAG_NOTE]]],
    ['claim 12 is not claim 1', [1], '12: something else', [[1, DEFAULT_FLAG_NOTE]]],
    ['two lines for one claim are joined', [1], '1: wrong unit\n1: wrong date', [[1, 'wrong unit wrong date']]],
    ['no flags ⇒ empty', [], '1: a', []],
  ])('%s', (_name, drop, issues, expected) => {
    expect([...flagNotes({ drop, issues }).entries()]).toEqual(expected);
  });

  test('notes are at most 240 characters', () => {
    const note = flagNotes({ drop: [1], issues: `1: ${'word '.repeat(100)}` }).get(1) as string;
    expect(note.length).toBeLessThanOrEqual(240);
    expect(note.endsWith('…')).toBe(true);
  });

  test('the default note is the agreed text', () => {
    expect(DEFAULT_FLAG_NOTE).toBe('The reviewer questioned this point.');
  });
});

describe('numberedClaims / INDEPTH_VERDICT_RESPONSE_FORMAT', () => {
  test.each<[string[], string]>([
    [[], ''],
    [['Weight fell [1].'], '1. Weight fell [1].'],
    [[' A [1]. ', 'B [2].', 'C.'], '1. A [1].\n2. B [2].\n3. C.'],
  ])('numberedClaims %j', (claims, expected) => {
    expect(numberedClaims(claims)).toBe(expected);
  });

  test('schema indepth_verdict requiring drop', () => {
    const f = INDEPTH_VERDICT_RESPONSE_FORMAT as { type: string; json_schema: { name: string; schema: { required: string[]; properties: Record<string, { type: string; items?: { type: string } }> } } };
    expect(f.type).toBe('json_schema');
    expect(f.json_schema.name).toBe('indepth_verdict');
    expect(f.json_schema.schema.required).toEqual(['drop']);
    expect(f.json_schema.schema.properties.drop).toEqual({ type: 'array', items: { type: 'integer' } });
    expect(f.json_schema.schema.properties.issues.type).toBe('string');
  });
});
