/** Result envelopes of the non-product output modes (§3.8). */
import type { LegEnvelope } from '../answer';
import { HubError } from '../errors';
import { answerUsages, resolveReferences } from './references';
import type { TurnState } from './types';
import { deterministicValidation, reviewedValidation } from './validation';

/**
 * `bare`: `{answer, citations, blocks, safetyStatus}`, plus `references` in the hub's Answer contract
 * (below); drug safety is not run for these profiles.
 * When the temporal gate ran (`warn`/`enforce`), its result and the deterministic `answerValidation`
 * (with the writer's first draft when a check changed it) are added, so a patched Answer is never
 * shown without saying so.
 */
function bareEnvelope(turn: TurnState): LegEnvelope {
  const draft = turn.answer.draft ?? { answer: '', citations: [], blocks: [] };
  const envelope: LegEnvelope = { answer: draft.answer, citations: draft.citations, blocks: draft.blocks, safetyStatus: 'unavailable' };
  if (turn.validation.temporalGate && turn.validation.temporalGate.mode !== 'off') {
    envelope.temporalGate = turn.validation.temporalGate;
    envelope.answerValidation = deterministicValidation(turn);
  }
  if (turn.profile.policies.answerContract === 'chart_answer') envelope.references = bareReferences(turn);
  return envelope;
}

/**
 * In the hub's `chart_answer` contract the citations are ledger indices, so they are resolved against the
 * complete ledger (§8) like a product Answer's: the harness counts citations from `references`. No
 * grounding runs on these plans, so resolved references stay `unchecked` (decision 16). Legs keep the
 * caller's contract and the [REF] shape of §3.8 (their citations are not the hub's to interpret).
 */
function bareReferences(turn: TurnState) {
  if (!turn.answer.draft || !turn.context.ledger) return [];
  return resolveReferences(answerUsages(turn.answer.draft, 'answer'), turn.context.ledger, 'unchecked');
}

/** `indepth`: the claims as a section, `{"answer": "**In Depth**\n- c1\n- c2", "citations": [], "blocks": []}` (§3.8). */
function inDepthEnvelope(turn: TurnState): LegEnvelope {
  const claims = turn.answer.inDepthClaims ?? [];
  return { answer: claims.length ? `**In Depth**\n${claims.map((c) => `- ${c}`).join('\n')}` : '', citations: [], blocks: [] };
}

/**
 * `review` (the `answer-review:` leg): the reviewed Answer as sent — review labels, never rewrites —
 * with its answer confidence and settled `answerValidation`; no safety keys (§3.8).
 */
function reviewEnvelope(turn: TurnState): LegEnvelope {
  const draft = turn.answer.draft ?? { answer: '', citations: [], blocks: [] };
  return {
    answer: draft.answer,
    citations: draft.citations,
    blocks: draft.blocks,
    confidence: { answer: turn.answer.confidence.answer },
    answerValidation: reviewedValidation(turn),
  };
}

export function resultEnvelope(turn: TurnState): LegEnvelope {
  switch (turn.profile.policies.output) {
    case 'bare':
      return bareEnvelope(turn);
    case 'indepth':
      return inDepthEnvelope(turn);
    case 'review':
      return reviewEnvelope(turn);
    default:
      throw new HubError('stage_not_implemented', `Output mode '${turn.profile.policies.output}' is not available yet.`);
  }
}
