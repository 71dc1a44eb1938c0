/**
 * The temporal checks' shortcuts against the code they replaced (kept here as oracles): the calendar-date
 * test read by character codes, the phrase scan skipped when a token is missing from the lower-cased
 * text, the CR-free chart split, and the premises those shortcuts rest on.
 */
import { dateId, buildTemporalFacts } from '../../../../server/checks/temporal/facts';
import { phraseSpans } from '../../../../server/checks/temporal/gate-series';
import { isCalendarDate, parseDateObservations, parseEvents } from '../../../../server/checks/temporal/parse';
import { lcg, randomChart } from '../../../support/random-chart';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function oracleIsCalendarDate(s: string): boolean {
  if (s.length !== 10 || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const y = Number(s.slice(0, 4));
  const m = Number(s.slice(5, 7));
  const d = Number(s.slice(8, 10));
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]);
}

function oracleSpans(tokens: readonly string[], text: string): Array<{ start: number; end: number }> {
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const body = tokens.map((t) => `${escape(t)}(?:e?s)?`).join('[\\s\\-_/]+');
  const re = new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'giu');
  return [...text.matchAll(re)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

describe('isCalendarDate by character codes', () => {
  test('equals the pattern-and-slices version on edge cases and random date-like strings', () => {
    const edges = ['2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29', '0000-01-01', '2026-13-01', '2026-00-10', '2026-04-31', '2026-04-30', '2026-12-00',
      '2026-1-101', '2026/01/01', ' 2026-01-0', '2026-01-01 ', '２０２６-01-01', '2026-0١-01', '+026-01-01', '2026-01-+1', '2026-01-1e', '', '2026-01-01x'];
    for (const s of edges) expect(isCalendarDate(s)).toBe(oracleIsCalendarDate(s));
    const rand = lcg(7);
    const chars = '0123456789-- +.e/x١';
    for (let i = 0; i < 20000; i++) {
      const base = `${1900 + Math.floor(rand() * 200)}-${String(Math.floor(rand() * 14)).padStart(2, '0')}-${String(Math.floor(rand() * 33)).padStart(2, '0')}`;
      const at = Math.floor(rand() * 12);
      const s = rand() < 0.3 ? base.slice(0, at) + chars[Math.floor(rand() * chars.length)] + base.slice(at + 1) : base;
      expect(isCalendarDate(s)).toBe(oracleIsCalendarDate(s));
    }
  });
});

describe('phrase scans skipped when a token is missing', () => {
  test('only ſ and the Kelvin sign case-fold onto ASCII letters or digits (the premise of the shortcut)', () => {
    const folding: number[] = [];
    const asciiWord = /[a-z0-9]/iu;
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      if (asciiWord.test(String.fromCodePoint(c))) folding.push(c);
    }
    expect(folding).toEqual([0x17f, 0x212a]);
  });

  test('equals the plain scan on random texts (case, plurals, separators, ſ, K, İ, accents)', () => {
    const rand = lcg(11);
    const words = ['weight', 'Weight', 'WEIGHTS', 'weighſ', 'wt', 'WT', 'weighed', 'growth', 'gaining', 'blood', 'pressure', 'Blood-Pressure', 'blood_pressure', 'cd4', 'CD4s',
      'haemoglobin', 'Hémoglobine', 'hb', 'HB', 'kg', 'Kg', 'İ', 'ı', 'diastolic', 'systolic', 'bodyweight', 'weight2', '71', '-', '/', '\n', '  ', '.', ','];
    const tokenLists = [['weight'], ['wt'], ['weighs'], ['blood', 'pressure'], ['cd4'], ['hémoglobine'], ['hb'], ['kg'], ['diastolic', 'blood', 'pressure'], ['ı'], ['growth']];
    for (let i = 0; i < 4000; i++) {
      const n = 1 + Math.floor(rand() * 12);
      let text = '';
      for (let k = 0; k < n; k++) text += words[Math.floor(rand() * words.length)] + (rand() < 0.7 ? ' ' : '');
      const lower = /[\u017f\u212a]/.test(text) ? null : text.toLowerCase();
      for (const tokens of tokenLists) expect(phraseSpans(tokens, text, lower)).toEqual(oracleSpans(tokens, text));
    }
  });
});

describe('chart parsing shortcuts', () => {
  test('lower-casing grows only U+0130 (the premise of the encounter-class length check)', () => {
    const grows: number[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCodePoint(c);
      if (ch.toLowerCase().length !== ch.length) grows.push(c);
    }
    expect(grows).toEqual([0x130]);
  });

  test('dateId (remembered) equals its formula, for ISO and other shapes, asked twice', () => {
    const oracle = (iso: string) => (/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `D${iso.slice(0, 4)}_${iso.slice(5, 7)}_${iso.slice(8, 10)}` : `D${iso.replace(/-/g, '_')}`);
    for (const iso of ['2026-03-02', '2026-3-2', '20260302', '2026-03-02-x', '', '--']) {
      expect(dateId(iso)).toBe(oracle(iso));
      expect(dateId(iso)).toBe(oracle(iso));
    }
  });

  test('events and facts of random charts do not depend on the line-break style', () => {
    // The CR-free split is taken for LF charts; the same chart with CRLF breaks takes the pattern split.
    for (let seed = 1; seed <= 40; seed++) {
      const lf = randomChart(lcg(seed), 150).replace(/\r/g, '');
      expect(lf.includes('\r')).toBe(false);
      const crlf = lf.replace(/\n/g, '\r\n');
      expect(parseEvents(lf)).toEqual(parseEvents(crlf));
      const opts = { referenceDate: '2026-03-10', anchorMode: 'fixed' };
      expect(buildTemporalFacts(lf, opts)).toEqual(buildTemporalFacts(crlf, opts));
    }
  });

  test('date observations skip dash-free bodies exactly as reading them would', () => {
    const rand = lcg(5);
    for (let seed = 1; seed <= 40; seed++) {
      const events = parseEvents(randomChart(lcg(seed + rand()), 200));
      // Oracle: every body read, each ISO-shaped calendar date of its value kept once.
      const oracle = events.flatMap((e) => {
        const dash = e.body.indexOf(' — ');
        const tail = dash >= 0 ? e.body.slice(dash + 3) : e.body;
        const colon = tail.indexOf(':');
        if (colon <= 0 || !tail.slice(0, colon).trim()) return [];
        const value = tail.slice(colon + 1).trim();
        const dates: string[] = [];
        for (const m of value.matchAll(/(?<![\d-])(\d{4}-\d{2}-\d{2})(?![\d])/g)) if (oracleIsCalendarDate(m[1]) && !dates.includes(m[1])) dates.push(m[1]);
        return dates.map((d) => ({ index: e.index, source_date: e.date, value_date: d, concept: tail.slice(0, colon).trim(), cls: e.cls }));
      });
      expect(parseDateObservations(events)).toEqual(oracle);
    }
  });
});
