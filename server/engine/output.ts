/** Result envelopes of the non-product output modes (§3.8). */
import { HubError } from '../errors';
import type { TurnState } from './types';

/** `bare`: `{answer, citations, blocks, safetyStatus}`; drug safety is not run for these profiles. */
function bareEnvelope(turn: TurnState): Record<string, unknown> {
  const draft = turn.draft ?? { answer: '', citations: [], blocks: [] };
  return { answer: draft.answer, citations: draft.citations, blocks: draft.blocks, safetyStatus: 'unavailable' };
}

export function resultEnvelope(turn: TurnState): Record<string, unknown> {
  switch (turn.profile.policies.output) {
    case 'bare':
      return bareEnvelope(turn);
    default:
      throw new HubError('stage_not_implemented', 501, `Output mode '${turn.profile.policies.output}' is not available yet.`);
  }
}
