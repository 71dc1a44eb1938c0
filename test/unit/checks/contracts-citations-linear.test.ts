/**
 * The citation contract stays linear on long runs in the model's Answer: the appointment-list pattern
 * had two adjacent `\s*` (a blank run split every way), the final punctuation was found with
 * `/[.!?]+$/` (quadratic on a run that is not at the end), and malformed groups were deduplicated with
 * `Array.includes` (quadratic in their number). The results are the former ones.
 */
import { applyCitationContract, canonicalizeCitationGroups, isSingleClaim } from '../../../server/checks/contracts/citations';
import { RUN_LENGTH, RUN_ROWS } from '../../support/blank-runs';

describe.each(RUN_ROWS)('isSingleClaim with 50,000 %s', (name, { run }) => {
  // Line breaks split sentences: a CRLF run makes every case below more than one claim.
  const oneSentence = name !== 'CRLF';
  test.each<[string, string, boolean]>([
    ['a run before the final stop', `Weight is 71 kg${run}.`, oneSentence],
    ['a list of appointment kinds across a run', `No upcoming appointment,${run}or follow-up visit.`, oneSentence],
    ['a run after an appointment kind, then a coordinated clause (rejecting suffix)', `No upcoming visit${run}, and x`, false],
    ['runs around a slash, then a coordinated clause', `No upcoming visit${run}/${run}x, and y`, false],
  ])('%s', (_case, prose, expected) => {
    expect(isSingleClaim(prose)).toBe(expected);
  });
});

describe.each(RUN_ROWS)('applyCitationContract with 50,000 %s', (name, { run }) => {
  test('declared indices go before the final stop of a single claim, the run dropped', () => {
    const answer = `Weight is 71 kg${run}.`;
    const got = applyCitationContract({ answer, declared: [3], blocks: [] });
    expect(got.citations).toEqual([3]);
    if (name === 'CRLF') {
      expect(got.answer).toBe(answer);
      expect(got.issue?.id).toBe('citation_scope');
    } else {
      expect(got).toEqual({ answer: 'Weight is 71 kg [3].', citations: [3], changed: true, issue: null });
    }
  });
});

describe('applyCitationContract with 50,000 punctuation marks', () => {
  test.each<[string, string, string]>([
    ['a run of dots before a last word (rejecting suffix)', `a${'.'.repeat(RUN_LENGTH)}x`, `a${'.'.repeat(RUN_LENGTH)}x [1]`],
    ['a run of final punctuation', `Weight 71 kg${'.!?'.repeat(RUN_LENGTH / 5)}`, `Weight 71 kg [1]${'.!?'.repeat(RUN_LENGTH / 5)}`],
  ])('%s', (_case, answer, expected) => {
    expect(applyCitationContract({ answer, declared: [1], blocks: [] })).toEqual({ answer: expected, citations: [1], changed: true, issue: null });
  });
});

describe.each(RUN_ROWS)('canonicalizeCitationGroups with 50,000 %s', (_name, { run }) => {
  test.each<[string, string, { text: string; changed: boolean; malformed: string[] }]>([
    ['a run after the comma of a group', `A [1,${run}2] b`, { text: 'A [1][2] b', changed: true, malformed: [] }],
    ['a run as the separator is reported', `A [1${run}2].`, { text: `A [1${run}2].`, changed: false, malformed: [`[1${run}2]`] }],
    ['a run before a non-index (rejecting suffix)', `A [1${run}x].`, { text: `A [1${run}x].`, changed: false, malformed: [] }],
  ])('%s', (_case, text, expected) => {
    expect(canonicalizeCitationGroups(text)).toEqual(expected);
  });
});

describe('canonicalizeCitationGroups with 20,000 distinct malformed groups', () => {
  test('each is reported once, in order of appearance', () => {
    const groups = Array.from({ length: 20_000 }, (_, i) => `[${i}; 1]`);
    const text = `${groups.join(' ')} ${groups.join(' ')}`;
    expect(canonicalizeCitationGroups(text)).toEqual({ text, changed: false, malformed: groups });
  });
});
