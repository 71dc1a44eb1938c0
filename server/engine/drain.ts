/**
 * Blocking adapter: drains the engine's events into one envelope (decision 3). Product turns are
 * re-shaped as §3.6 says (citations recomputed from the references, every envelope key copied,
 * `safetyStatus` included); other output modes return their `result` verbatim.
 */
import { citationsFromReferences, type DoneEvent, type ResultEvent, type BlockingProductEnvelope, type LegEnvelope, type ProductEnvelope } from '../answer';
import { HubError } from '../errors';
import { runProductTurn } from './product';
import { runTurn } from './run';
import type { EngineDeps, TurnState } from './types';

/** §3.6: `{answer, citations, references, blocks}` plus every other envelope key. */
export function blockingEnvelope(done: ProductEnvelope): BlockingProductEnvelope {
  const { answer, references, blocks, ...rest } = done;
  return { answer, citations: citationsFromReferences(references), references, blocks, ...rest };
}

export async function drainTurn(turn: TurnState, deps: EngineDeps): Promise<BlockingProductEnvelope | LegEnvelope> {
  const product = turn.profile.policies.output === 'product';
  let last: DoneEvent | ResultEvent | null = null;
  const events = product ? runProductTurn(turn, deps, { adapter: 'block' }) : runTurn(turn, deps);
  for await (const event of events) {
    if (event.name === 'result' || event.name === 'done') last = event;
  }
  if (!last) throw new HubError('internal_error', 'The engine ended without a result.');
  return last.name === 'done' ? blockingEnvelope(last.data) : last.data;
}
