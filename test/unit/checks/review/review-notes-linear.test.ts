/**
 * The review notes stay linear on long runs in the reviewer's text. In-Depth notes were read with
 * `…\s*SEP?\s*(.*)$`, whose overlapping quantifiers made a note with a line break in it cost cubic time
 * (4,000 spaces: 26 s); the Answer review note stripped its trailing punctuation with `/[\s.;:!?]+$/`,
 * quadratic on a long run that is not at the end. The results are the former ones.
 */
import { DEFAULT_FLAG_NOTE, flagNotes } from '../../../../server/checks/review/indepth-review';
import { judgeReview } from '../../../../server/checks/review/answer-review';
import { RUN_LENGTH, RUN_ROWS } from '../../../support/blank-runs';

const NOTE_TAIL = '. The answer is shown as written; verify against the chart.';

describe.each(RUN_ROWS)('flagNotes with 50,000 %s', (name, { run }) => {
  const crlf = name === 'CRLF';
  const lineBreak = name === 'CRLF' || name === 'U+2028';
  test.each<[string, string, Record<number, string>]>([
    // A CRLF run splits the issues into lines: the number's line has no note of its own.
    ['a run between the separator and the note', `Claim 1:${run}Weight is wrong`, { 1: crlf ? DEFAULT_FLAG_NOTE : 'Weight is wrong' }],
    ['a run after the note', `1.${run}Dose is wrong${run}`, { 1: lineBreak ? DEFAULT_FLAG_NOTE : 'Dose is wrong' }],
    ['a run before a line break in the note (rejecting suffix)', `claim 1${run}x\u2028`, { 1: DEFAULT_FLAG_NOTE }],
    ['a run after digits without a separator, then a line break', `claim 12${run}note\u2028more`, { 12: DEFAULT_FLAG_NOTE }],
    [
      'runs around a `; ` that starts the next claim',
      `- point 2 –${run}Too high${run}; #1)${run}Dose missing`,
      { 1: crlf ? DEFAULT_FLAG_NOTE : 'Dose missing', 2: lineBreak ? DEFAULT_FLAG_NOTE : 'Too high' },
    ],
  ])('%s', (_case, issues, expected) => {
    const drop = Object.keys(expected).map(Number).sort((a, b) => a - b);
    expect(Object.fromEntries(flagNotes({ drop, issues }))).toEqual(expected);
  });
});

describe('flagNotes with 50,000 digits after the claim word, then a line break', () => {
  test('no note is read', () => {
    expect([...flagNotes({ drop: [1], issues: `claim ${'1'.repeat(RUN_LENGTH)}\u2028` })]).toEqual([[1, DEFAULT_FLAG_NOTE]]);
  });
});

describe.each(RUN_ROWS)('judgeReview with 50,000 %s in the Answer, the quotes and the fix', (_name, { run }) => {
  test('the flag is localised and its note loses the trailing blanks and punctuation', () => {
    const error = { wrong: `71 kg${run}[3]`, chart: `Weight${run}71 kg`, fix: `Weight is 70 kg${run}.${run};${run}` };
    const judgement = judgeReview(
      { answer_ok: false, errors: [error], corrected_answer: '' },
      { reviewedText: `Weight 71 kg${run}[3].`, ledgerSize: 3, chartText: `[3] Weight${run}71 kg`, confirmed: [] },
    );
    expect(judgement.status).toBe('needs_review');
    expect(judgement.counted).toEqual([error]);
    expect(judgement.note).toBe(`Clinical review flagged: Weight is 70 kg${NOTE_TAIL}`);
  });
});

describe('judgeReview note with 50,000 punctuation marks before the last word', () => {
  test.each<[string, string]>([
    ['dots', '.'],
    ['semicolons and colons', ';:'],
  ])('%s: the note is cut at its length bound', (_name, marks) => {
    const fix = `A${marks.repeat(RUN_LENGTH / marks.length)}b.`;
    const judgement = judgeReview(
      { answer_ok: false, errors: [{ wrong: 'x', chart: 'x', fix }], corrected_answer: '' },
      { reviewedText: 'x', ledgerSize: 1, chartText: 'x', confirmed: [] },
    );
    expect(judgement.note).toBe(`Clinical review flagged: ${fix.slice(0, 199)}…${NOTE_TAIL}`);
  });
});
