/**
 * normaliseForMatch stays linear on long blank runs. Its marker pattern used to start with `\s*\[`, tried
 * from every position of a run: 30,000 CRLF in a model Answer, a reviewer quote or the client's chart
 * took seconds per request with the event loop blocked. The results below are what the quadratic
 * version returned too.
 */
import { normaliseForMatch } from '../../../../server/checks/review/normalise';
import { RUN_ROWS } from '../../../support/blank-runs';

describe.each(RUN_ROWS)('normaliseForMatch on 50,000 %s', (_name, { run }) => {
  test.each<[string, string, string]>([
    ['a run between words collapses to one space', `weight${run}71 kg`, 'weight 71 kg'],
    ['a run before a marker goes with the marker', `Weight 71 kg${run}[3].`, 'weight 71 kg.'],
    ['a run before a `[` that is no marker (rejecting suffix)', `Weight${run}[x`, 'weight [x'],
    ['a run before an unclosed marker', `Weight${run}[3`, 'weight [3'],
    ['runs inside a grouped marker', `A [1,${run}2${run}].`, 'a.'],
    ['a run inside a marker that then fails', `A [1${run}x`, 'a [1 x'],
    ['a run at the start, before a marker', `${run}[2] start`, 'start'],
    ['a run at the end, after a marker', `71 kg [3]${run}`, '71 kg'],
    ['only a run', run, ''],
  ])('%s', (_case, input, expected) => {
    expect(normaliseForMatch(input)).toBe(expected);
  });
});
