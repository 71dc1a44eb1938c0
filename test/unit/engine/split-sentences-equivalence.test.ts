/**
 * splitSentences skips blank lines in one scan (a reply of tens of thousands of blank lines cost
 * 13 ms a call, several calls a turn). Its result must equal the plain split-trim-filter it replaced.
 */
import { CITATION_MARKER } from '../../../server/answer/citations';
import { splitSentences } from '../../../server/engine/references-usage';
import { BLANK_RUNS } from '../../support/blank-runs';

const AFTER_PUNCTUATION = /(?<=[.!?])\s+/;
/** The former line-by-line pieces, before markers are merged back (the part the scan replaced). */
function reference(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.split(AFTER_PUNCTUATION))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The former splitSentences, composed from the reference pieces and the unchanged merge step. */
function formerSplit(text: string): string[] {
  const out: string[] = [];
  for (const piece of reference(text)) {
    if (out.length > 0 && piece.replace(CITATION_MARKER, '').replace(/[\s.!?;,]/g, '') === '') out[out.length - 1] = `${out[out.length - 1]} ${piece}`;
    else out.push(piece);
  }
  return out.length > 0 ? out : [text];
}

function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

const ATOMS = ['Weight 71 kg', '.', '!', '?', ' ', '  ', '\n', '\n\n', '\t', '\u00a0', '\u2028', '\r\n', '[2]', '[3, 4]', 'fell', 'On 2026-03-02', ','];

describe('splitSentences', () => {
  test('equals the former split on 3,000 random texts of words, punctuation, markers and every kind of blank', () => {
    const rand = lcg(7);
    for (let i = 0; i < 3000; i++) {
      const n = Math.floor(rand() * 40);
      const text = Array.from({ length: n }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join('');
      expect({ text, got: splitSentences(text) }).toEqual({ text, got: formerSplit(text) });
    }
  });

  test.each(BLANK_RUNS.map((r) => [r.name, r.run] as const))('a 50,000-character run of %s between sentences', (_name, run) => {
    const text = `Weight fell [2].${run}It is 71 kg [1].${run}`;
    expect(splitSentences(text)).toEqual(formerSplit(text));
  });
});
