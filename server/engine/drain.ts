/** Blocking adapter: drains the engine's events into the final envelope (decision 3). */
import { HubError } from '../errors';
import { runTurn } from './run';
import type { EngineDeps, TurnState } from './types';

export async function drainTurn(turn: TurnState, deps: EngineDeps): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> | null = null;
  for await (const event of runTurn(turn, deps)) {
    if (event.name === 'result' || event.name === 'done') last = event.data;
  }
  if (!last) throw new HubError('internal_error', 500, 'The engine ended without a result.');
  return last;
}
