/**
 * The hand-read record line (server/context/record-line.ts) answers exactly what the regexes it replaced
 * answer: a table of edge cases, then seeded random lines built from the characters that matter
 * (brackets, digits, every kind of JavaScript white space, line terminators, dates).
 */
import { datePrefixEnd, isRecordLine, readRecordLine } from '../../../server/context/record-line';
import { isJsSpace } from '../../../server/text-scan';
import { parseChart } from '../../../server/context/inline-chart';
import { Rng } from '../../support/fuzz/rng';

const RECORD_LINE = /^\[(\d+)\]\s*((?:\S.*)?)$/;
const DATE_PREFIX = /^\((\d{4}-\d{2}-\d{2})\)\s*/;

/** What the regexes made of a trimmed line: the number, the date and the body, or null. */
function byRegex(t: string): { n: number; date: string | null; body: string } | null {
  const m = RECORD_LINE.exec(t);
  if (!m) return null;
  const d = DATE_PREFIX.exec(m[2]);
  return { n: Number(m[1]), date: d ? d[1] : null, body: d ? m[2].slice(d[0].length) : m[2] };
}

function byHand(t: string): { n: number; date: string | null; body: string } | null {
  const parts = readRecordLine(t, { n: 0, bodyStart: 0 });
  if (!parts) return null;
  const after = datePrefixEnd(t, parts.bodyStart);
  return { n: parts.n, date: after >= 0 ? t.slice(parts.bodyStart + 1, parts.bodyStart + 11) : null, body: t.slice(after >= 0 ? after : parts.bodyStart) };
}

const SPACES = ['\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
const NOT_SPACES = ['\u0085', '\u180e', '\u200b', '\u0008', '\u001f', 'a', '—'];

describe('record line, by hand', () => {
  test.each([
    ['[1] (2026-01-02) Weight 60 kg', { n: 1, date: '2026-01-02', body: 'Weight 60 kg' }],
    ['[12]Weight', { n: 12, date: null, body: 'Weight' }],
    ['[3]', { n: 3, date: null, body: '' }],
    ['[3]   ', { n: 3, date: null, body: '' }],
    ['[007] x', { n: 7, date: null, body: 'x' }],
    ['[1] (2026-01-02)', { n: 1, date: '2026-01-02', body: '' }],
    ['[1] (2026-01-02)Weight', { n: 1, date: '2026-01-02', body: 'Weight' }],
    ['[1] (2026-1-02) Weight', { n: 1, date: null, body: '(2026-1-02) Weight' }],
    ['[1] (2026-01-02 Weight', { n: 1, date: null, body: '(2026-01-02 Weight' }],
    ['[1] (2026/01/02) Weight', { n: 1, date: null, body: '(2026/01/02) Weight' }],
    ['[1] \u2028 Weight', { n: 1, date: null, body: 'Weight' }],
    ['[1] a\u2028b', null],
    ['[1] a\rb', null],
    ['[1] a\u2029', null],
    ['[] x', null],
    ['[x] y', null],
    ['[1 x', null],
    [' [1] x', null],
    ['[١] x', null],
    ['[12345678901234567890] big', { n: 12345678901234567890, date: null, body: 'big' }],
    ['[1] (2026-01-02) \u00a0 tail', { n: 1, date: '2026-01-02', body: 'tail' }],
  ])('%j', (line, expected) => {
    expect(byRegex(line)).toEqual(expected);
    expect(byHand(line)).toEqual(expected);
    expect(isRecordLine(line)).toBe(expected !== null);
  });

  test('white space is what \\s and trim() count, for every UTF-16 code unit', () => {
    const differ: number[] = [];
    for (let c = 0; c <= 0xffff; c++) if (isJsSpace(c) !== /\s/.test(String.fromCharCode(c))) differ.push(c);
    expect(differ).toEqual([]);
  });

  test('seeded random lines: the same record, date and body as the regexes', () => {
    const alphabet = ['[', ']', '(', ')', '-', '0', '1', '9', '2026', '2026-01-02', 'x', 'é', ...SPACES, ...NOT_SPACES];
    const differ: unknown[] = [];
    for (const seed of [1, 2, 3]) {
      const rng = new Rng(seed);
      for (let i = 0; i < 4000; i++) {
        const head = rng.bool(0.8) ? `[${rng.int(0, 999)}]` : '';
        const parts = Array.from({ length: rng.int(0, 8) }, () => rng.pick(alphabet));
        if (rng.bool(0.4)) parts.splice(rng.int(0, parts.length), 0, `(2026-0${rng.int(1, 9)}-1${rng.int(0, 9)})`);
        const t = `${head}${parts.join('')}`.trim();
        if (JSON.stringify(byHand(t)) !== JSON.stringify(byRegex(t))) differ.push({ seed, i, t, hand: byHand(t), regex: byRegex(t) });
      }
    }
    expect(differ).toEqual([]);
  });

  test('a chart of such lines parses to the same ledger line by line', () => {
    const chart = ['[1] (2026-01-02) Weight 60 kg', '  continuation', '[2] Allergy: penicillin', '[3] (2026-02-03)\u00a0BP 120/80', '[4] a\u2028b'].join('\n');
    const ledger = parseChart(chart, { maxRecords: 10 });
    expect(ledger.records.map((r) => [r.stableId, r.date, r.text, r.mandatory])).toEqual([
      ['inline:1', '2026-01-02', 'Weight 60 kg\ncontinuation', false],
      ['inline:2', '2026-01-02', 'Allergy: penicillin', true],
      ['inline:3', '2026-02-03', 'BP 120/80\n[4] a\u2028b', false],
    ]);
  });
});
