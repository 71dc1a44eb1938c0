/**
 * Temporal facts of one turn (§4.7, §6.1–§6.2): the reference date is resolved once per request and
 * the facts are computed from the complete rendered chart, never from a reduced prompt view.
 */
import { anchorSettingFor, resolveReferenceDate } from '../checks/temporal/anchor';
import { buildTemporalFacts } from '../checks/temporal/facts';
import { parseEvents } from '../checks/temporal/parse';
import { temporalFactsSummary } from '../checks/temporal/render';
import { renderLedger } from '../context/inline-chart';
import type { EvidenceLedger } from '../context/types';
import type { EngineDeps, TurnState } from './types';
import { yieldIfLarge } from '../event-loop';

export async function prepareTemporal(turn: TurnState, deps: EngineDeps, ledger: EvidenceLedger, now: Date = new Date()): Promise<void> {
  if (!turn.temporal.enabled) return;
  const started = performance.now();
  const chartText = renderLedger(ledger);
  const events = parseEvents(chartText);
  await yieldIfLarge(ledger.records.length);
  const setting = anchorSettingFor(turn.profile.policies.anchor, deps.config.anchor, turn.profile.policies.output === 'product');
  const { anchorMode, referenceDate } = resolveReferenceDate(setting, { now, timezone: deps.config.timezone, events, chartText });
  const facts = buildTemporalFacts(chartText, { referenceDate, anchorMode, events });
  turn.referenceDate = referenceDate;
  turn.facts = facts;
  turn.steps.push({ role: 'temporal_facts', duration_ms: performance.now() - started, ...temporalFactsSummary(facts) });
}
