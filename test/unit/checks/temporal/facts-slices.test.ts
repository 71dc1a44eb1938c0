/**
 * The sliced temporal parse and facts build (used for charts of more than 500 records) give exactly
 * the events and the facts object of `parseEvents` and `buildTemporalFacts`, however the chart is cut
 * into runs and wherever the loop is given back.
 */
import { LoopSlice, runSteps, stepsInSlices } from '../../../../server/event-loop';
import { buildTemporalFacts, factsSteps } from '../../../../server/checks/temporal/facts';
import { buildTemporalFactsInSlices, parseEventsInSlices } from '../../../../server/checks/temporal/facts-slices';
import { parseDateObservations, parseEvents, parseNumericObservations } from '../../../../server/checks/temporal/parse';
import { syntheticChart } from '../../../support/synthetic-chart';
import { lcg, randomChart } from '../../../support/random-chart';

const REFERENCES = ['2026-03-10', '2025-12-01', null, '2026-02-30'];

describe('parseEventsInSlices and buildTemporalFactsInSlices', () => {
  test('equal parseEvents and buildTemporalFacts on 1,500 random charts cut into runs of random size', async () => {
    const rand = lcg(41);
    let yields = 0;
    for (let i = 0; i < 1500; i++) {
      const text = randomChart(rand, Math.floor(rand() * 80));
      const slice = new LoopSlice(0);
      const events = await parseEventsInSlices(text, slice, Math.floor(rand() * 200));
      expect({ i, text, events }).toEqual({ i, text, events: parseEvents(text) });
      const opts = { referenceDate: REFERENCES[Math.floor(rand() * REFERENCES.length)], anchorMode: 'explicit' };
      const facts = await buildTemporalFactsInSlices(events, opts, slice, 1 + Math.floor(rand() * 9));
      expect({ i, text, facts }).toEqual({ i, text, facts: buildTemporalFacts(text, { ...opts, events }) });
      yields += slice.yields;
    }
    expect(yields).toBeGreaterThan(10_000);
  });

  test('a 6,000-record chart: the same facts, built in many slices', async () => {
    const text = syntheticChart(6000);
    const slice = new LoopSlice(0);
    const events = await parseEventsInSlices(text, slice);
    expect(events).toEqual(parseEvents(text));
    const opts = { referenceDate: '2026-03-10', anchorMode: 'explicit' };
    expect(await buildTemporalFactsInSlices(events, opts, slice)).toEqual(buildTemporalFacts(text, { ...opts, events }));
    expect(slice.yields).toBeGreaterThan(50);
  });

  test('the facts steps give the same object run at once or paused at every point', async () => {
    const text = syntheticChart(1200);
    const events = parseEvents(text);
    const observations = { events, numeric: parseNumericObservations(events), dateObs: parseDateObservations(events) };
    const opts = { referenceDate: '2026-03-10', anchorMode: 'explicit' };
    expect(await stepsInSlices(factsSteps(opts, observations), new LoopSlice(0))).toEqual(runSteps(factsSteps(opts, observations)));
  });
});
