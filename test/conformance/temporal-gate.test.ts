/**
 * Conformance family `temporal_gate` (clients.md, hub-contract §12): the Answer gate against the
 * shared fixture. A case gives an answer, optionally ledger dates and a one-concept numeric series,
 * and the expected status; each case's adapter supplies what the fixture leaves implicit (the
 * question and the series unit). Cases are iterated by id, so a new fixture case without an adapter
 * fails.
 */
import * as fs from 'fs';
import * as path from 'path';
import { runTemporalGate } from '../../server/checks/temporal/gate';
import type { TemporalGateResult } from '../../server/checks/temporal/types';
import { makeFacts, type PointSpec } from '../unit/checks/temporal/gate-fixtures';

const FIXTURE = path.resolve(__dirname, '../../../shared/conformance/dual-provider-conformance.v1.json');

interface TemporalCase {
  id: string;
  answer: string;
  ledger_dates?: string[];
  concept?: string;
  numeric_series?: Array<{ date: string; value: number }>;
  expected_status: TemporalGateResult['status'];
}

interface Adapter {
  question: string;
  /** The unit the fixture's series values carry. */
  unit?: string;
  /** The check that must decide a `fail` case, so it fails for the reason the case names. */
  because?: string;
}

const ADAPTERS: Record<string, Adapter> = {
  'temporal.malformed-date-fails': { question: 'When is the next visit?', because: 'date_format' },
  'temporal.non-ledger-date-fails': { question: 'When was the last visit?', because: 'date_format' },
  'temporal.date-value-binding-fails': { question: 'What was the weight?', unit: 'kg', because: 'date_value_binding' },
  'temporal.single-point-trend-fails': { question: 'Is the weight increasing?', unit: 'kg', because: 'single_point_trend' },
};

const cases: TemporalCase[] = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')).temporal_gate;

/** Facts exactly as the case describes them: no reference date, and a ledger of only what it names. */
function factsFor(c: TemporalCase, adapter: Adapter) {
  const points: PointSpec[] = (c.numeric_series ?? []).map((p, i) => ({ index: i + 1, date: p.date, value: p.value, unit: adapter.unit }));
  return makeFacts({
    reference: null,
    series: c.concept ? { [c.concept]: points } : {},
    dates: c.ledger_dates ?? [],
    emptyLedger: !c.ledger_dates && points.length === 0,
  });
}

test('the fixture has temporal_gate cases', () => {
  expect(cases.length).toBeGreaterThan(0);
});

describe.each(cases.map((c) => [c.id, c] as const))('%s', (id, c) => {
  test(`status is ${c.expected_status}`, () => {
    const adapter = ADAPTERS[id];
    if (!adapter) throw new Error(`no adapter for conformance case ${id}: add one to ADAPTERS`);
    const result = runTemporalGate({ question: adapter.question, answer: c.answer, citations: [], facts: factsFor(c, adapter), mode: 'enforce' });
    expect(result.status).toBe(c.expected_status);
    if (adapter.because) expect(result.checks.filter((k) => k.status === 'fail').map((k) => k.id)).toContain(adapter.because);
  });
});
