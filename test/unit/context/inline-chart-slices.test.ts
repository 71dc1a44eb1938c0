/**
 * The sliced chart parse (used for every inline chart: thousands of records held the loop for tens of
 * milliseconds) builds the same ledger, or the same refusal, as the one-piece parse; the trailer split
 * that no longer splits the whole chart into lines finds the same trailer as the line-by-line one.
 */
import { HubError } from '../../../server/errors';
import { LoopSlice } from '../../../server/event-loop';
import { parseChart, parseChartInSlices, splitAtTrailer } from '../../../server/context/inline-chart';
import { lcg, randomChart } from '../../support/random-chart';

/** The former line-by-line split. */
function formerSplit(text: string): { chart: string; trailer: string } {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l) => /^(Clinician's query:|Records ranked by similarity to the query:)/.test(l.trim()));
  if (at < 0) return { chart: text, trailer: '' };
  return { chart: lines.slice(0, at).join('\n').trimEnd(), trailer: lines.slice(at).join('\n').trim() };
}

async function outcome<T>(f: () => T | Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await f() };
  } catch (err) {
    return { error: err instanceof HubError ? { code: err.code, status: err.status, message: err.message } : String(err) };
  }
}

describe('parseChartInSlices', () => {
  test('equals parseChart on 1,500 random charts, yielding at every run, the record limit reached or not', async () => {
    const rand = lcg(3);
    let refused = 0;
    let yields = 0;
    for (let i = 0; i < 1500; i++) {
      const text = randomChart(rand, Math.floor(rand() * 60));
      const maxRecords = 1 + Math.floor(rand() * 60);
      const slice = new LoopSlice(0);
      const got = await outcome(() => parseChartInSlices(text, { maxRecords, linesPerRun: 1 + Math.floor(rand() * 7) }, slice));
      const want = await outcome(() => parseChart(text, { maxRecords }));
      expect({ i, text, ...got }).toEqual({ i, text, ...want });
      if (want.error) refused++;
      yields += slice.yields;
    }
    expect(refused).toBeGreaterThan(100);
    expect(yields).toBeGreaterThan(1500);
  });

  test('a chart over the limit is refused from a count of its record lines, before any record is built', async () => {
    const text = Array.from({ length: 30 }, (_, i) => `[${i + 1}] (2026-01-01) r`).join('\n');
    const slice = new LoopSlice(0);
    await expect(parseChartInSlices(text, { maxRecords: 20, linesPerRun: 10 }, slice)).rejects.toMatchObject({ code: 'invalid_request_error', status: 400 });
    // Three counting runs, no parsing run.
    expect(slice.yields).toBe(2);
  });
});

describe('splitAtTrailer', () => {
  const ATOMS = ["Clinician's query:", 'Records ranked by similarity to the query:', 'Clinician', ' ', '\t', '\n', '\r\n', '\r', '\u2028', '\u00a0', 'x', '[1] (2026-01-01) A', ' 1.'];
  test('equals the line-by-line split on 5,000 random texts', () => {
    const rand = lcg(17);
    for (let i = 0; i < 5000; i++) {
      const text = Array.from({ length: Math.floor(rand() * 16) }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join('');
      expect({ text, got: splitAtTrailer(text) }).toEqual({ text, got: formerSplit(text) });
    }
  });

  test('many labels on one long line are looked at once (linear)', () => {
    const text = `x ${"Clinician's query: ".repeat(20_000)}\nClinician's query: Q`;
    expect(splitAtTrailer(text)).toEqual(formerSplit(text));
  });
});
