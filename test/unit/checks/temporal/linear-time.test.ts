/**
 * Long blank runs in model, chart and client text (a model reply full of blank space froze the event
 * loop for seconds). Every temporal text reader gets 50,000-character runs of each kind of blank,
 * placed where the old patterns backtracked — between words, after a value, before a rejecting
 * suffix, inside a clause break, between a date and a value — and must still give the right result:
 * pieces with their offsets, bindings, and no claims that the text does not make.
 *
 * Wall-clock time is not asserted (machines differ). Before the linear-time rewrite each of these
 * inputs took seconds; now each takes milliseconds.
 */
import { checkDateFormat, findDateLikeTokens } from '../../../../server/checks/temporal/gate-dates';
import { readValues } from '../../../../server/checks/temporal/gate-numbers';
import { coordinatedGroup, findMentions, selectSeries } from '../../../../server/checks/temporal/gate-series';
import { checkTrends } from '../../../../server/checks/temporal/gate-trend';
import { trendClaims } from '../../../../server/checks/temporal/gate-trend-claims';
import { checkDateValues } from '../../../../server/checks/temporal/gate-values';
import { checkLastVisit, checkUpcoming } from '../../../../server/checks/temporal/gate-visits';
import type { GateContext } from '../../../../server/checks/temporal/gate-common';
import { repairDanglingBracket } from '../../../../server/checks/temporal/indepth-repair';
import { parseEvents, parseNumericObservations } from '../../../../server/checks/temporal/parse';
import { negatedBefore, splitClauses, splitSentences, wordsAfter, wordsBefore, type Piece } from '../../../../server/checks/temporal/text';
import type { TemporalFacts } from '../../../../server/checks/temporal/types';
import { clinicFacts, gate, makeFacts, verdicts } from './gate-fixtures';

type RunName = 'space' | 'tab' | 'NBSP' | 'U+2028' | 'CRLF';

const RUNS: Record<RunName, string> = {
  space: ' '.repeat(50_000),
  tab: '\t'.repeat(50_000),
  NBSP: '\u00a0'.repeat(50_000),
  'U+2028': '\u2028'.repeat(50_000),
  CRLF: '\r\n'.repeat(25_000),
};
const ALL = Object.keys(RUNS) as RunName[];
/** Runs that stay inside one line: CRLF also ends the line, which sentences and chart lines honour. */
const IN_LINE = ALL.filter((r) => r !== 'CRLF');

const CLINIC = clinicFacts();

/** One table row per run kind the case applies to: [case label, run name, case]. */
function rows<C extends { label: string; runs?: readonly RunName[] }>(cases: readonly C[]): Array<[string, RunName, C]> {
  return cases.flatMap((c) => (c.runs ?? ALL).map((r): [string, RunName, C] => [c.label, r, c]));
}

/** Each piece's text and where it starts, checked to be the original text at that offset. */
function located(text: string, pieces: readonly Piece[]): Array<[string, number]> {
  for (const p of pieces) expect(text.slice(p.start, p.start + p.text.length)).toBe(p.text);
  return pieces.map((p) => [p.text, p.start]);
}

function ctxOf(answer: string, question = '', facts: TemporalFacts = CLINIC): GateContext {
  return {
    question,
    answer,
    facts,
    ledger: new Set(facts.date_ledger.map((e) => e.iso)),
    selected: selectSeries(facts.numeric_series, answer, question),
    trendAsked: true,
    questionTrend: question !== '',
  };
}

const ids = (r: { checks: Array<{ id: string; status: string }> }) => r.checks.map((c) => `${c.id}:${c.status}`);

describe('splitClauses: pieces and offsets across a long blank run', () => {
  const cases: Array<{ label: string; text: (r: string) => string; want: (r: string) => string[] }> = [
    { label: 'run before a rejecting `!`', text: (r) => `Weight: 71 kg [1]${r}!`, want: (r) => [`Weight: 71 kg [1]${r}!`] },
    { label: 'run inside a `but` break', text: (r) => `Weight fell${r}but height rose`, want: () => ['Weight fell', 'height rose'] },
    { label: 'run inside a `, then` break', text: (r) => `It rose to 45 kg,${r}then fell to 41 kg`, want: () => ['It rose to 45 kg', 'fell to 41 kg'] },
    { label: 'run inside a bare `then` break', text: (r) => `Weight rose${r}then fell`, want: () => ['Weight rose', 'fell'] },
    { label: 'run then a word that is no break', text: (r) => `Weight fell${r}bu`, want: (r) => [`Weight fell${r}bu`] },
    { label: 'run then `but` with nothing after', text: (r) => `Weight fell${r}but`, want: (r) => [`Weight fell${r}but`] },
    { label: 'runs around the only words', text: (r) => `${r}Weight fell${r}`, want: () => ['Weight fell'] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => {
    const text = c.text(RUNS[run]);
    const got = located(text, splitClauses({ text, start: 0 }));
    expect(got).toEqual(c.want(RUNS[run]).map((w) => [w, text.indexOf(w)]));
    // Offsets stay in the piece's coordinate system.
    expect(splitClauses({ text, start: 1000 }).map((p) => p.start)).toEqual(got.map(([, s]) => s + 1000));
  });
});

describe('splitSentences: pieces and offsets across a long blank run', () => {
  const cases: Array<{ label: string; runs?: RunName[]; text: (r: string) => string; want: (r: string) => string[] }> = [
    { label: 'run after a full stop', text: (r) => `Weight was 41 kg [3].${r}A trend cannot be determined.`, want: () => ['Weight was 41 kg [3].', 'A trend cannot be determined.'] },
    { label: 'run before a rejecting `!`', runs: IN_LINE, text: (r) => `Weight: 71 kg [1]${r}!`, want: (r) => [`Weight: 71 kg [1]${r}!`] },
    { label: 'CRLF lines before `!`', runs: ['CRLF'], text: (r) => `Weight: 71 kg [1]${r}!`, want: () => ['Weight: 71 kg [1]', '!'] },
    { label: 'runs around the only word', text: (r) => `${r}Weight${r}`, want: () => ['Weight'] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => {
    const text = c.text(RUNS[run]);
    expect(located(text, splitSentences(text))).toEqual(c.want(RUNS[run]).map((w) => [w, text.lastIndexOf(w)]));
  });
});

describe('word look-back and look-ahead across long blank runs', () => {
  test.each(ALL)('negation reaches over a run (%s)', (run) => {
    const r = RUNS[run];
    const text = `Weight is not${r}increasing`;
    expect(negatedBefore(text, text.indexOf('increasing'))).toBe(true);
    const replied = `No,${r}weight fell`;
    expect(negatedBefore(replied, replied.indexOf('fell'))).toBe(false);
    const alone = `${r}weight fell`;
    expect(negatedBefore(alone, alone.indexOf('fell'))).toBe(false);
  });

  test.each(ALL)('the last and the next words (%s)', (run) => {
    const r = RUNS[run];
    const text = `the${r}weight${r}was${r}71`;
    expect(wordsBefore(text, text.indexOf('71'), 2)).toEqual(['weight', 'was']);
    expect(wordsBefore(text, text.indexOf('71'), 9)).toEqual(['the', 'weight', 'was']);
    const after = `71 kg${r}on${r}the${r}visit`;
    expect(wordsAfter(after, 5, 2)).toEqual(['on', 'the']);
  });
});

describe('gate-dates: date-like tokens around long blank runs', () => {
  const cases: Array<{ label: string; text: (r: string) => string; want: (t: string) => Array<{ text: string; start: number; kind: string }> }> = [
    { label: 'run between year and month', text: (r) => `2006${r}-05-18`, want: (t) => [{ text: t, start: 0, kind: 'malformed' }] },
    { label: 'truncated date before a run', text: (r) => `2006-05${r}x`, want: () => [{ text: '2006-05', start: 0, kind: 'truncated' }] },
    { label: 'runs around a slash (not a date)', text: (r) => `2006${r}/${r}05`, want: () => [] },
    { label: 'ISO date before a run and `!`', text: (r) => `on 2006-05-18${r}!`, want: () => [{ text: '2006-05-18', start: 3, kind: 'iso' }] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => {
    const text = c.text(RUNS[run]);
    expect(findDateLikeTokens(text).map((t) => ({ text: t.text, start: t.start, kind: t.kind }))).toEqual(c.want(text));
  });

  test.each(ALL)('date_format passes a ledger date before a run (%s)', (run) => {
    expect(ids(checkDateFormat(ctxOf(`Weight 41 kg on 2006-05-18${RUNS[run]}[3].`)))).toEqual(['date_format:pass']);
  });
});

describe('gate-numbers: values read across long blank runs', () => {
  const read = (text: string, facts: TemporalFacts = CLINIC) => {
    const all = facts.numeric_series;
    const selected = all.filter((s) => s.concept === 'Weight' || s.concept === 'Blood pressure');
    return readValues(text, findMentions(text, selected, all), selected, all, () => text.length).map((t) => [t.value, t.series?.concept ?? null, t.start]);
  };
  const cases: Array<{ label: string; text: (r: string) => string; want: (t: string) => unknown[] }> = [
    { label: 'value and unit before a run and `!`', text: (r) => `Weight 41 kg${r}!`, want: () => [[41, 'Weight', 7]] },
    { label: '`m` then a run then no square (still kg)', text: (r) => `Weight 41 kg m${r}x`, want: () => [[41, 'Weight', 7]] },
    { label: '`m` then a run then `2` (kg·m², not kg)', text: (r) => `Weight 41 kg m${r}2`, want: (t) => [[41, null, 7], [2, null, t.length - 1]] },
    { label: 'a sign after a run is a range dash', text: (r) => `Weight 45${r}-41 kg`, want: (t) => [[45, 'Weight', 7], [41, 'Weight', t.indexOf('41')]] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => {
    const text = c.text(RUNS[run]);
    expect(read(text)).toEqual(c.want(text));
  });

  test.each(ALL)('chart units with runs: an annotation and an inner blank run (%s)', (run) => {
    const r = RUNS[run];
    const facts = makeFacts({
      series: {
        Weight: [{ index: 1, date: '2006-05-18', value: 41, unit: `kg${r.replace(/[\r\n]/g, ' ')}(normal)` }],
        'Blood pressure': [{ index: 2, date: '2006-05-18', value: 120, unit: 'mm  Hg' }],
      },
    });
    expect(read(`Weight 41 kg${r}!`, facts)).toEqual([[41, 'Weight', 7]]);
    expect(read(`Blood pressure 120 mm${r}Hg`, facts)).toEqual([[120, 'Blood pressure', 15]]);
    expect(read(`Blood pressure 120 mm${r}x`, facts)).toEqual([[120, null, 15]]);
  });

  test('a long thousands-separator chain that ends badly is read as before, group by group', () => {
    const text = `1${',000'.repeat(12_500)},0`;
    const got = read(text);
    expect(got).toHaveLength(12_502);
    expect(got.slice(0, 3)).toEqual([[1, null, 0], [0, null, 2], [0, null, 6]]);
  });
});

describe('gate-series: coordinated names across long blank runs', () => {
  const all = CLINIC.numeric_series;
  test.each(ALL)('"weight <run> and <run> height" is one group; a stray word breaks it (%s)', (run) => {
    const r = RUNS[run];
    const text = `weight${r}and${r}height`;
    const mentions = findMentions(text, all, all);
    expect(coordinatedGroup(mentions[0], mentions, text).map((m) => m.series.concept)).toEqual(['Weight', 'Height']);
    const broken = `weight${r}and${r}x height`;
    const split = findMentions(broken, all, all);
    expect(coordinatedGroup(split[0], split, broken).map((m) => m.series.concept)).toEqual(['Weight']);
  });
});

describe('gate-trend-claims: claims across long blank runs', () => {
  const claims = (answer: string, facts: TemporalFacts = CLINIC, only?: string) => {
    const selected = selectSeries(facts.numeric_series, answer, '').filter((s) => !only || s.series.concept === only);
    return trendClaims(answer, selected, facts.numeric_series).map((c) => [c.series.concept, c.direction, c.negated, c.word]);
  };
  const cases: Array<{ label: string; runs?: RunName[]; text: (r: string) => string; want: unknown[] }> = [
    { label: 'two claims across a `but` run', text: (r) => `Weight fell${r}but height rose`, want: [['Weight', 'down', false, 'fell'], ['Height', 'up', false, 'rose']] },
    { label: 'negation over a run', runs: IN_LINE, text: (r) => `Weight is not${r}increasing`, want: [['Weight', 'up', true, 'increasing']] },
    { label: 'a name, a run, then `loss`', text: (r) => `Weight${r}loss`, want: [['Weight', 'down', false, 'loss']] },
    { label: 'a run and a rejecting `!` only', text: (r) => `Weight: 71 kg [1]${r}!`, want: [] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => expect(claims(c.text(RUNS[run]))).toEqual(c.want));

  test.each(IN_LINE)('"hearing <run> loss" is no weight claim (%s)', (run) => {
    const facts = clinicFacts();
    const selected = selectSeries(facts.numeric_series, '', 'weight?');
    expect(trendClaims(`hearing${RUNS[run]}loss`, selected, facts.numeric_series)).toEqual([]);
  });
});

describe('gate-trend: trend_direction across long blank runs', () => {
  test.each(ALL)('a documented fall, its points split by a run, passes (%s)', (run) => {
    const answer = `Weight decreased from 45 kg on 2006-03-03 [20]${RUNS[run]}to 41 kg on 2006-05-18 [3].`;
    expect(ids(checkTrends(ctxOf(answer, 'How has the weight changed?')))).toEqual(['trend_direction:pass']);
  });

  test.each(ALL)('"Weight <run> rose" contradicts the fall (%s)', (run) => {
    expect(ids(checkTrends(ctxOf(`Weight${RUNS[run]}rose.`, 'How has the weight changed?')))).toEqual(['trend_direction:fail']);
  });
});

describe('gate-values: date_value_binding across long blank runs', () => {
  const cases: Array<{ label: string; runs?: RunName[]; text: (r: string) => string; want: string[] }> = [
    { label: 'wrong value, run, then its date', runs: IN_LINE, text: (r) => `Weight was 44 kg${r}on 2006-05-18 [3].`, want: ['date_value_binding:fail'] },
    { label: 'value and date on separate lines (not bound)', runs: ['CRLF'], text: (r) => `Weight was 44 kg${r}on 2006-05-18 [3].`, want: [] },
    { label: 'date header, run, then the value', runs: IN_LINE, text: (r) => `2006-05-18:${r}weight 41 kg [3].`, want: ['date_value_binding:pass'] },
    { label: 'grouped dates and values over a run', runs: IN_LINE, text: (r) => `On 2006-03-03 and 2006-05-18,${r}weight was 45 and 41 kg [20][3].`, want: ['date_value_binding:pass'] },
    { label: 'a date, a run, then many values', runs: IN_LINE, text: (r) => `2006-05-18${r}weight 41 kg, 41 kg, 41 kg [3].`, want: ['date_value_binding:pass'] },
    { label: 'a dated value, then a run and `!`', text: (r) => `Weight 41 kg on 2006-05-18 [3]${r}!`, want: ['date_value_binding:pass'] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => expect(ids(checkDateValues(ctxOf(c.text(RUNS[run]))))).toEqual(c.want));

  test.each(ALL)('In-Depth claim reading (by clause) over a run (%s)', (run) => {
    const ctx = { ...ctxOf(`Weight was 44 kg on 2006-05-18 [3]${RUNS[run]}but the CD4 count was drawn.`), claimLocal: { citations: new Set([3]) } };
    expect(ids(checkDateValues(ctx))).toEqual(['date_value_binding:fail']);
  });
});

describe('gate-visits: last_visit and upcoming_date across long blank runs', () => {
  const LAST_Q = 'When was the last visit?';
  const cases: Array<{ label: string; text: (r: string) => string; want: string[] }> = [
    { label: 'date, run, "was the last visit"', text: (r) => `2006-05-18 [4]${r}was the last visit.`, want: ['last_visit:pass'] },
    { label: 'preposition, run, then the phrase and its date', text: (r) => `Weight 41 kg was recorded at${r}the last visit on 2006-05-18 [4].`, want: ['last_visit:pass'] },
    { label: 'an older date far after the phrase (short answer)', text: (r) => `The last visit was${r}2006-04-13 [13].`, want: ['last_visit:fail'] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => expect(ids(checkLastVisit(ctxOf(c.text(RUNS[run]), LAST_Q)))).toEqual(c.want));

  const upcoming: Array<{ label: string; text: (r: string) => string; want: string[] }> = [
    { label: '"none upcoming", run, its bound', text: (r) => `No upcoming appointment is documented${r}after 2006-06-06.`, want: ['upcoming_date:pass', 'upcoming_date:warn'] },
    { label: 'past date framed as next, then a run and `!`', text: (r) => `The next appointment is 2006-06-01 [5]${r}!`, want: ['upcoming_date:fail', 'upcoming_date:warn'] },
  ];
  test.each(rows(upcoming))('%s (%s)', (_label, run, c) => expect(ids(checkUpcoming(ctxOf(c.text(RUNS[run]), 'Is there an upcoming appointment?')))).toEqual(c.want));
});

describe('the whole Answer gate on the headline inputs', () => {
  test.each(ALL)('a value, a run and `!` makes no claim (%s)', (run) => {
    const r = gate(CLINIC, 'How has the weight changed since the last visit, and when is the next appointment?', `Weight: 71 kg [1]${RUNS[run]}!`);
    expect(r.status).toBe('not_applicable');
    expect(verdicts(r)).toEqual([]);
  });

  test.each(ALL)('a correct answer split by a run still passes (%s)', (run) => {
    const r = gate(CLINIC, 'How has the weight changed?', `Weight decreased from 45 kg on 2006-03-03 [20]${RUNS[run]}to 41 kg on 2006-05-18 [3].`);
    expect(verdicts(r)).toEqual(['date_format:pass', 'trend_direction:pass', 'date_value_binding:pass']);
  });
});

describe('parse: chart lines with long blank runs', () => {
  const body = 'Finding — Weight: 45 kg';
  const events = (chart: string) => parseEvents(chart).map((e) => [e.index, e.date, e.body, e.administrative]);
  /** Runs a record body may hold: a line terminator (CRLF, U+2028) ends it or makes it no record. */
  const IN_BODY: RunName[] = ['space', 'tab', 'NBSP'];
  const cases: Array<{ label: string; runs: RunName[]; chart: (r: string) => string; want: (r: string) => unknown[] }> = [
    { label: 'run, then a trailing date-kind marker', runs: IN_BODY, chart: (r) => `[1] (2006-03-03) ${body}${r}[administrative]`, want: () => [[1, '2006-03-03', body, true]] },
    { label: 'marker on its own line is no marker', runs: ['CRLF'], chart: (r) => `[1] (2006-03-03) ${body}${r}[administrative]`, want: () => [[1, '2006-03-03', body, false]] },
    { label: 'a marker not at the end is kept', runs: IN_BODY, chart: (r) => `[1] (2006-03-03) ${body}${r}[administrative] x`, want: (r) => [[1, '2006-03-03', `${body}${r}[administrative] x`, false]] },
    { label: 'a run after the index', runs: [...IN_BODY, 'U+2028'], chart: (r) => `[1]${r}(2006-03-03) ${body}`, want: () => [[1, '2006-03-03', body, false]] },
    { label: 'a line break inside a body makes no record', runs: IN_BODY, chart: (r) => `[1] (2006-03-03) ${body}\n[2]${r}${body}\u2028x`, want: () => [[1, '2006-03-03', body, false]] },
    { label: 'blank lines between records', runs: ['CRLF'], chart: (r) => `[1] (2006-03-03) ${body}${r}[2] (2006-05-18) ${body}`, want: () => [[1, '2006-03-03', body, false], [2, '2006-05-18', body, false]] },
  ];
  test.each(rows(cases))('%s (%s)', (_label, run, c) => expect(events(c.chart(RUNS[run]))).toEqual(c.want(RUNS[run])));

  test.each(IN_BODY)('a group suffix after a run is cut from the unit; one before a rejecting suffix is not (%s)', (run) => {
    const r = RUNS[run];
    const units = (chart: string) => parseNumericObservations(parseEvents(chart)).map((o) => [o.value, o.unit]);
    expect(units(`[1] (2006-03-03) ${body}${r}(part of: Vitals)`)).toEqual([[45, 'kg']]);
    expect(units(`[1] (2006-03-03) ${body} (part of: Vitals)${r}x`)).toEqual([[45, `kg (part of: Vitals)${r}x`]]);
  });
});

describe('indepth-repair: a dangling citation completed across a run', () => {
  test.each(ALL)('value, run, unit and date (%s)', (run) => {
    const claim = `Weight 41${RUNS[run]}kg on 2006-05-18 [`;
    expect(repairDanglingBracket(claim, CLINIC)?.text).toBe(`Weight 41${RUNS[run]}kg on 2006-05-18 [3]`);
  });
});
