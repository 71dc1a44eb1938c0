/**
 * The gate paused between its checks (the gate stage's path for a long answer or a large chart) gives
 * the same result as the gate run at once, on random answers about a chart with several series.
 */
import { LoopSlice, stepsInSlices } from '../../../../server/event-loop';
import { runTemporalGate, temporalGateSteps } from '../../../../server/checks/temporal/gate';
import { inDepthGateSteps, runInDepthGate } from '../../../../server/checks/temporal/indepth-gate';
import { clinicFacts } from './gate-fixtures';
import { lcg } from '../../../support/random-chart';

const ATOMS = [
  'The weight', 'weight', 'Weight (kg)', 'height', 'haemoglobin', 'Hb', 'growth', 'increased', 'fell', 'was unchanged', 'cannot be determined',
  'from 55 kg on 2025-09-01', 'to 50 kg on 2026-01-10', 'on 2026-03-02', '02/03/2026', 'D2026_03_02', 'last visit', 'next appointment is 2026-04-01',
  'in the past 6 months', '[1]', '[2]', '[3, 4]', '.', ';', ',', ' and ', '\n', ' ', '71 kg', 'both', 'It then rose',
];

describe('temporalGateSteps', () => {
  test('paused at every check, equals runTemporalGate on 1,000 random answers', async () => {
    const rand = lcg(19);
    const facts = clinicFacts();
    for (let i = 0; i < 1000; i++) {
      const text = () => Array.from({ length: Math.floor(rand() * 24) }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join(' ');
      const input = { question: text(), answer: text(), citations: [1, 2, 3].filter(() => rand() < 0.5), facts, mode: rand() < 0.5 ? ('enforce' as const) : ('warn' as const) };
      const got = await stepsInSlices(temporalGateSteps(input), new LoopSlice(0));
      expect({ i, input: { ...input, facts: null }, got }).toEqual({ i, input: { ...input, facts: null }, got: runTemporalGate(input) });
    }
  });
});

describe('inDepthGateSteps', () => {
  test('paused between and inside claims, equals runInDepthGate on 300 random claim lists', async () => {
    const rand = lcg(43);
    const facts = clinicFacts();
    for (let i = 0; i < 300; i++) {
      const claims = Array.from({ length: Math.floor(rand() * 6) }, () => Array.from({ length: 1 + Math.floor(rand() * 10) }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join(' '));
      const input = { claims, facts, mode: (['enforce', 'warn', 'off'] as const)[Math.floor(rand() * 3)], ledgerSize: Math.floor(rand() * 30) };
      const got = await stepsInSlices(inDepthGateSteps(input), new LoopSlice(0));
      expect({ i, claims, got }).toEqual({ i, claims, got: runInDepthGate(input) });
    }
  });
});
