/**
 * Context building stays linear on long blank runs in the client's chart and messages. These patterns
 * were quadratic (≈1–2 s at 50,000 characters with the event loop blocked): `[ \t]*\[` in history
 * stripping, `\s*(.*)$` in the record line, `/\s+$/` before the chart trailer and in the prompt layout,
 * `“([^”]+)”` on unclosed quotes. The results are the former ones.
 */
import { stripPriorCitations } from '../../../server/context/history';
import { CHART_MARKER, extractChart, parseChart } from '../../../server/context/inline-chart';
import { buildContextMessage } from '../../../server/context/layout';
import { exactTerms } from '../../../server/context/relevance';
import { RUN_LENGTH, RUN_ROWS } from '../../support/blank-runs';

type Kind = 'spaces' | 'tabs' | 'NBSP' | 'U+2028' | 'CRLF';
/** The expected value per run kind, with a default for the kinds not named. */
const per = <T,>(name: string, dflt: T, by: Partial<Record<Kind, T>> = {}): T => (by as Record<string, T>)[name] ?? dflt;

describe.each(RUN_ROWS)('stripPriorCitations with 50,000 %s', (name, { run }) => {
  // `[ \t]*` takes only spaces and tabs before a marker; the other blanks stay in the text.
  const horizontal = name === 'spaces' || name === 'tabs';
  test.each<[string, string, string, number]>([
    ['a run before a marker', `Weight 71 kg${run}[3].`, horizontal ? 'Weight 71 kg.' : `Weight 71 kg${run}.`, 1],
    ['a run before a `[` that is no marker (rejecting suffix)', `a${run}[x`, per(name, `a${run}[x`, { spaces: 'a [x' }), 0],
    ['a run at a line end', `a${run}\nb`, per(name, `a${run}\nb`, { spaces: 'a\nb' }), 0],
    ['a run inside a grouped marker', `[1,${run}2] b`, 'b', 1],
    ['a run at the start, before a marker', `${run}[2] start`, per(name, `${run}start`, { spaces: 'start', tabs: 'start', NBSP: `${run} start` }), 1],
  ])('%s', (_case, content, expected, stripped) => {
    const out = stripPriorCitations([{ role: 'assistant', content }]);
    expect(out.messages[0].content).toBe(expected);
    expect(out.stripped).toBe(stripped);
  });
});

describe.each(RUN_ROWS)('parseChart with 50,000 %s', (name, { run }) => {
  const records = (chart: string) => parseChart(chart, { maxRecords: 10 }).records.map((r) => [r.stableId, r.date, r.text]);
  test('a run in a record line before a line break in its body (rejecting suffix)', () => {
    // `.` stops at U+2028: the line is no record line, so the chart is one unnumbered record; a CRLF run splits the lines.
    const chart = `[1]${run}x\u2028y`;
    expect(records(chart)).toEqual(per(name, [['inline:1', null, chart]], { CRLF: [['inline:1', null, '\nx\u2028y']] }));
  });
  test('a run between the number and the date', () => {
    const got = records(`[1]${run}(2024-01-02) Weight 71 kg\n[2] Height`);
    expect(got).toEqual(
      per(name, [['inline:1', '2024-01-02', 'Weight 71 kg'], ['inline:2', '2024-01-02', 'Height']], {
        CRLF: [['inline:1', null, '\n(2024-01-02) Weight 71 kg'], ['inline:2', null, 'Height']],
      }),
    );
  });
  test('a run at a line end', () => {
    expect(records(`[1] a${run}\n[2] b`)).toEqual([['inline:1', null, 'a'], ['inline:2', null, 'b']]);
  });
});

describe.each(RUN_ROWS)('extractChart with 50,000 %s', (name, { run }) => {
  // The trailer is split into lines and joined again with `\n`.
  const joined = name === 'CRLF' ? '\n'.repeat(RUN_LENGTH / 2) : run;
  test.each<[string, string, string, string]>([
    ['runs at line ends and around the query', `[1] a${run}\nClinician's query:${run}What is the weight?${run}`, '[1] a', 'What is the weight?'],
    ['a run inside the chart before more text (rejecting suffix)', `[1] a${run}b\nClinician's query: q`, `[1] a${joined}b`, 'q'],
    ['no query after the trailer label', `[1] a\nRecords ranked by similarity to the query:${run}x`, '[1] a', ''],
  ])('%s', (_case, body, chart, question) => {
    const got = extractChart([{ role: 'user', content: `${CHART_MARKER}\n${body}` }]);
    expect(got.chartText).toBe(chart);
    // Without a query the question falls back to the text before the marker, then the message itself.
    expect(got.question).toBe(question || `${CHART_MARKER}\n${body}`);
  });
});

describe.each(RUN_ROWS)('buildContextMessage with 50,000 %s', (_name, { run }) => {
  test.each<[string, string, string]>([
    ['a trailing run is dropped', `[1] a${run}`, `${CHART_MARKER}\n[1] a`],
    ['a run before more text stays (rejecting suffix)', `[1] a${run}b`, `${CHART_MARKER}\n[1] a${run}b`],
  ])('%s', (_case, chart, expected) => {
    expect(buildContextMessage({ temporalFacts: 'Facts.', chart }).text).toBe(`Facts.\n\n${expected}`);
  });
});

describe('exactTerms on long runs of quotes and blanks', () => {
  test.each<[string, string, string[][]]>([
    ['50,000 unclosed curly quotes', '“'.repeat(RUN_LENGTH), []],
    ['50,000 curly quotes, then one closed', `${'“'.repeat(RUN_LENGTH)}x”`, [['x']]],
    ['unclosed curly quotes between words', '“a '.repeat(Math.floor(RUN_LENGTH / 3)), []],
    ['50,000 straight quotes (all empty pairs)', '"'.repeat(RUN_LENGTH), []],
    ['an empty curly pair, then a phrase', `“”${'“'.repeat(RUN_LENGTH)}left ankle” and "CIEL:123"`, [['ciel:123'], ['left', 'ankle']]],
  ])('%s', (_case, question, expected) => {
    expect(exactTerms(question)).toEqual(expected);
  });

  test.each(RUN_ROWS)('a quoted phrase around 50,000 %s', (_name, { run }) => {
    expect(exactTerms(`Is “left${run}ankle” swollen? “${run}”`)).toEqual([['left', 'ankle']]);
  });
});
