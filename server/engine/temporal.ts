/**
 * Temporal facts of one turn (§4.7, §6.1–§6.2): the reference date is resolved once per request and
 * the facts are computed from the complete rendered chart, never from a reduced prompt view.
 */
import { anchorSettingFor, resolveReferenceDate, buildTemporalFacts, buildTemporalFactsInSlices, parseEventsInSlices, parseEvents, temporalFactsSummary } from '../checks/temporal';
import { renderLedger, type EvidenceLedger } from '../context';
import { noteTemporalFacts } from './slices/context';
import { recordStep } from './steps';
import type { EngineDeps, TurnState } from './types';
import { LoopSlice, YIELD_ABOVE_RECORDS } from '../event-loop';

export async function prepareTemporal(turn: TurnState, deps: EngineDeps, ledger: EvidenceLedger, now: Date = new Date()): Promise<void> {
  if (!turn.temporal.enabled) return;
  const started = performance.now();
  // A large chart is read in slices (the same events and facts), giving the loop back between them.
  const slice = ledger.records.length > YIELD_ABOVE_RECORDS ? new LoopSlice() : null;
  const chartText = renderLedger(ledger);
  const events = slice ? await parseEventsInSlices(chartText, slice) : parseEvents(chartText);
  const setting = anchorSettingFor(turn.profile.policies.anchor, deps.config.anchor, turn.profile.policies.output === 'product');
  const { anchorMode, referenceDate } = resolveReferenceDate(setting, { now, timezone: deps.config.timezone, events, chartText });
  const opts = { referenceDate, anchorMode };
  const facts = slice ? await buildTemporalFactsInSlices(events, opts, slice) : buildTemporalFacts(chartText, { ...opts, events });
  noteTemporalFacts(turn, referenceDate, facts);
  recordStep(turn, { role: 'temporal_facts', duration_ms: performance.now() - started, ...temporalFactsSummary(facts) });
}
