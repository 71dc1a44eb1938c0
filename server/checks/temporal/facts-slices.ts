/**
 * Temporal facts of a large chart in slices: the same events and the same facts object as `parseEvents`
 * and `buildTemporalFacts`, computed a run at a time so that a chart of thousands of records gives the
 * event loop back between runs (on a 6,000-record chart the one-piece build held it for 20–40 ms).
 * Still clock-free: when to yield is the caller's `Slicer`; the runs and their merge are deterministic.
 */
import { stepsInSlices, type Slicer, type Steps } from '../../event-loop';
import { factsSteps, type TemporalFactsOptions } from './facts';
import { NumericObservations, parseDateObservations, parseEvents, type NumericObservation } from './parse';
import type { ChartEvent, DateObservation, TemporalFacts } from './types';

/** Roughly how much chart text one `parseEvents` run reads before a yield may come. */
const RUN_CHARS = 32 * 1024;
/** Events per run of the observation passes. */
const EVENTS_PER_RUN = 500;

/** The line from `start` to the next LF (without the CR of a CRLF). */
function lineAt(text: string, start: number): { line: string; end: number } {
  const nl = text.indexOf('\n', start);
  const end = nl < 0 ? text.length : nl;
  return { line: text.slice(start, end > start && text[end - 1] === '\r' && nl >= 0 ? end - 1 : end), end };
}

/**
 * A line that dates itself: parsed on its own it is an event, so its date is its own and not one
 * carried forward. The events of the lines from one such line on do not depend on the lines before it,
 * which is what lets the chart be parsed in runs that each start at one.
 */
function datesItself(line: string): boolean {
  return line.includes('[') && parseEvents(line).length === 1;
}

/**
 * Start offsets of the runs: 0, then the first self-dating line at least RUN_CHARS after the previous
 * start. Each offset is just after a LF, so the runs' lines are exactly the chart's lines.
 */
function runStarts(text: string, runChars: number): number[] {
  const starts = [0];
  let from = runChars;
  while (from < text.length) {
    let nl = text.indexOf('\n', from);
    let found = -1;
    while (nl >= 0) {
      const { line, end } = lineAt(text, nl + 1);
      if (datesItself(line)) {
        found = nl + 1;
        break;
      }
      nl = end < text.length ? end : -1;
    }
    if (found < 0) break;
    starts.push(found);
    from = found + runChars;
  }
  return starts;
}

/** `parseEvents(chartText)`, a run of lines at a time. */
function* eventsSteps(chartText: string, runChars: number): Steps<ChartEvent[]> {
  const starts = runStarts(chartText, runChars);
  yield;
  const events: ChartEvent[] = [];
  for (let i = 0; i < starts.length; i++) {
    // Each run ends before the line break that precedes the next one (LF, or CRLF).
    let end = i + 1 < starts.length ? starts[i + 1] - 1 : chartText.length;
    if (i + 1 < starts.length && end > starts[i] && chartText[end - 1] === '\r') end--;
    for (const e of parseEvents(chartText.slice(starts[i], end))) events.push(e);
    yield;
  }
  return events;
}

export function parseEventsInSlices(chartText: string, slice: Slicer, runChars = RUN_CHARS): Promise<ChartEvent[]> {
  return stepsInSlices(eventsSteps(chartText, runChars), slice);
}

/** `parseNumericObservations(events)`, read a run of events at a time. */
function* numericSteps(events: readonly ChartEvent[], perRun: number): Steps<NumericObservation[]> {
  const parsed = new NumericObservations();
  for (let from = 0; from < events.length; from += perRun) {
    parsed.add(events.slice(from, from + perRun));
    yield;
  }
  return parsed.out;
}

/** `parseDateObservations(events)` from runs of events (it reads each event on its own). */
function* datesSteps(events: readonly ChartEvent[], perRun: number): Steps<DateObservation[]> {
  const out: DateObservation[] = [];
  for (let from = 0; from < events.length; from += perRun) {
    for (const o of parseDateObservations(events.slice(from, from + perRun))) out.push(o);
    yield;
  }
  return out;
}

/** `buildTemporalFacts(chartText, { ...opts, events })` in slices. */
export function buildTemporalFactsInSlices(events: readonly ChartEvent[], opts: TemporalFactsOptions, slice: Slicer, eventsPerRun = EVENTS_PER_RUN): Promise<TemporalFacts> {
  return stepsInSlices(
    (function* () {
      const numeric = yield* numericSteps(events, eventsPerRun);
      const dateObs = yield* datesSteps(events, eventsPerRun);
      return yield* factsSteps(opts, { events, numeric, dateObs });
    })(),
    slice,
  );
}
