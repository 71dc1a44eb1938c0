/**
 * Blocking adapter: drains the engine's events into one envelope (decision 3). Product turns are
 * re-shaped as §3.6 says (citations recomputed from the references, every envelope key copied,
 * `safetyStatus` included); other output modes return their `result` verbatim.
 */
import { HubError } from '../errors';
import { runProductTurn } from './product';
import { citationsFromReferences, type Reference } from './references';
import { runTurn } from './run';
import type { EngineDeps, TurnState } from './types';

const COPIED = ['confidence', 'answerValidation', 'inDepth', 'model', 'safetyStatus', 'safetyWarnings', 'safetyCheck', 'drug_safety', 'context', 'temporalGate', 'agreement'] as const;

/** §3.6: `{answer, citations, references, blocks}` plus every envelope key present. */
export function blockingEnvelope(done: Record<string, unknown>): Record<string, unknown> {
  const references = (done.references as Reference[] | undefined) ?? [];
  const out: Record<string, unknown> = { answer: done.answer, citations: citationsFromReferences(references), references, blocks: done.blocks ?? [] };
  for (const key of COPIED) if (key in done) out[key] = done[key];
  return out;
}

export async function drainTurn(turn: TurnState, deps: EngineDeps): Promise<Record<string, unknown>> {
  const product = turn.profile.policies.output === 'product';
  let last: Record<string, unknown> | null = null;
  const events = product ? runProductTurn(turn, deps, { adapter: 'block' }) : runTurn(turn, deps);
  for await (const event of events) {
    if (event.name === 'result' || event.name === 'done') last = event.data;
  }
  if (!last) throw new HubError('internal_error', 'The engine ended without a result.');
  return product ? blockingEnvelope(last) : last;
}
