/**
 * The fake router's tokenizer (test/support/fake-router-sse.ts) on 50,000-character blank runs: a run
 * joins the piece after it, and a trailing run is a piece of its own. Its pattern now starts pieces only
 * where a blank run starts, so the lint can see it is linear; these are the pieces it always produced.
 */
import { fakeTokenize } from '../support/fake-router';
import { RUN_ROWS } from '../support/blank-runs';

describe.each(RUN_ROWS)('fakeTokenize with 50,000 %s', (_name, { run }) => {
  test.each<[string, string, string[]]>([
    ['a run before punctuation', `${run}!`, [`${run}!`]],
    ['a run between words', `a${run}b`, ['a', `${run}b`]],
    ['a trailing run (no piece after it)', `a${run}`, ['a', run]],
    ['only a run', run, [run]],
    ['runs around symbols and emoji', `[1]${run}😀${run}x.`, ['[', '1', ']', `${run}😀`, `${run}x`, '.']],
  ])('%s', (_case, text, expected) => {
    const pieces = fakeTokenize(text);
    expect(pieces).toEqual(expected);
    expect(pieces.join('')).toBe(text);
  });
});
