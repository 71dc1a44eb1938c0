/** parseRewriteVerdict and the `rewrite_verdict` schema (§7.3 step 4–5). */
import { parseRewriteVerdict, REWRITE_VERDICT_RESPONSE_FORMAT } from '../../../../server/checks/review/answer-review';

const ERR = { wrong: '74 kg', chart: '[2] 2026-01-10 Weight: 72 kg', fix: 'The weight was 72 kg.' };

describe('parseRewriteVerdict', () => {
  test.each<[string, string, unknown]>([
    ['raw clean', '{"answer_ok": true, "errors": []}', { answer_ok: true, errors: [], corrected_answer: '' }],
    ['fenced', '```json\n{"answer_ok": false, "errors": [' + JSON.stringify(ERR) + ']}\n```', { answer_ok: false, errors: [ERR], corrected_answer: '' }],
    ['prose-wrapped', 'My verdict is {"answer_ok": true} as requested.', { answer_ok: true, errors: [], corrected_answer: '' }],
    ['errors missing ⇒ []', '{"answer_ok": false}', { answer_ok: false, errors: [], corrected_answer: '' }],
    ['errors null ⇒ []', '{"answer_ok": true, "errors": null}', { answer_ok: true, errors: [], corrected_answer: '' }],
    ['array-wrapped: the outermost braces are read', '[{"answer_ok": true}]', { answer_ok: true, errors: [], corrected_answer: '' }],
    ['corrected_answer parsed', '{"answer_ok": false, "corrected_answer": "New text"}', { answer_ok: false, errors: [], corrected_answer: 'New text' }],
    ['chart/fix default to empty', '{"answer_ok": false, "errors": [{"wrong": " 74 kg "}]}', { answer_ok: false, errors: [{ wrong: '74 kg', chart: '', fix: '' }], corrected_answer: '' }],
    ['non-string chart/fix ⇒ empty', '{"answer_ok": false, "errors": [{"wrong": "x", "chart": 3, "fix": null}]}', { answer_ok: false, errors: [{ wrong: 'x', chart: '', fix: '' }], corrected_answer: '' }],
  ])('%s', (_name, content, expected) => {
    expect(parseRewriteVerdict(content)).toEqual(expected);
  });

  test.each<[string, string]>([
    ['answer_ok string', '{"answer_ok": "true", "errors": []}'],
    ['answer_ok missing', '{"errors": []}'],
    ['answer_ok number', '{"answer_ok": 1}'],
    ['errors not a list', '{"answer_ok": false, "errors": "74 kg is wrong"}'],
    ['not json', 'The answer looks fine.'],
    ['empty', ''],
    ['a bare list', '[true]'],
  ])('malformed: %s ⇒ null', (_name, content) => {
    expect(parseRewriteVerdict(content)).toBeNull();
  });

  test('error entries that are not objects or lack a usable wrong are dropped', () => {
    const content = JSON.stringify({
      answer_ok: false,
      errors: ['74 kg', null, 7, { chart: '[1]' }, { wrong: '' }, { wrong: '   ' }, { wrong: 12 }, ERR],
    });
    expect(parseRewriteVerdict(content)?.errors).toEqual([ERR]);
  });

  test.each<[string, unknown]>([
    ['list', [{ pair: 1, facts: [] }]],
    ['null', null],
    ['string', 'x'],
  ])('pairs (%s) carried through', (_name, pairs) => {
    const v = parseRewriteVerdict(JSON.stringify({ answer_ok: true, errors: [], pairs }));
    expect(v).not.toBeNull();
    expect('pairs' in (v as object)).toBe(true);
    expect(v?.pairs).toEqual(pairs);
  });

  test('no pairs key ⇒ no pairs property', () => {
    expect('pairs' in (parseRewriteVerdict('{"answer_ok": true}') as object)).toBe(false);
  });
});

describe('REWRITE_VERDICT_RESPONSE_FORMAT', () => {
  test('json_schema rewrite_verdict requiring answer_ok', () => {
    const f = REWRITE_VERDICT_RESPONSE_FORMAT as { type: string; json_schema: { name: string; schema: { required: string[]; properties: Record<string, { type: string; items?: { required: string[] } }> } } };
    expect(f.type).toBe('json_schema');
    expect(f.json_schema.name).toBe('rewrite_verdict');
    expect(f.json_schema.schema.required).toEqual(['answer_ok']);
    expect(Object.keys(f.json_schema.schema.properties).sort()).toEqual(['answer_ok', 'corrected_answer', 'errors']);
    expect(f.json_schema.schema.properties.errors.items?.required).toEqual(['wrong', 'chart', 'fix']);
  });
});
