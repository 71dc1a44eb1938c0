import {
  blankMarkers,
  findIsoDates,
  monthsBefore,
  negatedBefore,
  splitClauses,
  splitSentences,
  truncateClaim,
} from '../../../../server/checks/temporal/text';

describe('splitSentences', () => {
  test.each<[string, string[]]>([
    ['Weight was 41.0 kg [3]. A trend cannot be determined.', ['Weight was 41.0 kg [3].', 'A trend cannot be determined.']],
    ['Line one\nLine two', ['Line one', 'Line two']],
    ['Approx. 41 kg on 2006-05-18. Next.', ['Approx. 41 kg on 2006-05-18.', 'Next.']],
    ['Weight 41.5 kg. Height 150 cm, e.g. Dr. Smith.', ['Weight 41.5 kg.', 'Height 150 cm, e.g. Dr. Smith.']],
  ])('%s', (text, want) => expect(splitSentences(text).map((p) => p.text)).toEqual(want));

  test('offsets point back into the original text', () => {
    const text = 'First one. Second one.';
    for (const p of splitSentences(text)) expect(text.slice(p.start, p.start + p.text.length)).toBe(p.text);
  });
});

describe('splitClauses', () => {
  test.each<[string, string[]]>([
    ['Weight decreased while height increased', ['Weight decreased', 'height increased']],
    ['No upcoming visit; the last was 2006-06-01', ['No upcoming visit', 'the last was 2006-06-01']],
    ['Weight, measured monthly, decreased', ['Weight, measured monthly, decreased']],
    ['It rose to 45 kg, then fell to 41 kg', ['It rose to 45 kg', 'fell to 41 kg']],
  ])('%s', (text, want) => expect(splitClauses({ text, start: 0 }).map((p) => p.text)).toEqual(want));
});

describe('findIsoDates', () => {
  test('only exact, real calendar dates', () => {
    expect(findIsoDates('2006-05-18, 2026-02-30, 2006-05- 18, 2006-05-18T1, D2006_05_18').map((d) => d.iso)).toEqual(['2006-05-18']);
  });
});

test('blankMarkers keeps offsets and removes citation numbers and date ids', () => {
  const text = 'Weight 41 kg [3][4, 5] on D2006_05_18.';
  const out = blankMarkers(text);
  expect(out).toHaveLength(text.length);
  expect(out.match(/\d+/g)).toEqual(['41']);
});

test.each<[string, number, boolean]>([
  ['The patient is not gaining weight', 'The patient is not '.length, true],
  ["Weight hasn't increased", "Weight hasn't ".length, true],
  ['Weight has increased', 'Weight has '.length, false],
  ['Weight is not increasing: it fell', 'Weight is not increasing: it '.length, false],
  ['No, weight fell', 'No, weight '.length, false],
])('negatedBefore(%s)', (text, at, want) => expect(negatedBefore(text, at)).toBe(want));

test('truncateClaim caps at 240 characters', () => {
  expect(truncateClaim('x'.repeat(300))).toHaveLength(240);
  expect(truncateClaim('  a \n b ')).toBe('a b');
});

test('monthsBefore clamps the day', () => {
  expect(monthsBefore('2026-03-31', 1)).toBe('2026-02-28');
  expect(monthsBefore('2006-06-06', 12)).toBe('2005-06-06');
});
