/**
 * The turn's fit proofs (decisions 24 and 27), its `fit` slice written only here: which prompt layout
 * each model's stages use, and the Answer's exact count that later stages' bounds stand on. A later
 * stage on the Answer's model and context needs no count of its own when the Answer's count plus the
 * bytes of its own text fit the window; otherwise the plain byte bound may prove it; otherwise the
 * caller counts it exactly. Never an estimate (decision 7).
 */
import type { PromptLayout } from '../context';
import { blockParts, type ChatRequest } from '../llm';
import type { FitProof } from './slices/fit';
import type { EngineDeps, TurnState } from './types';

/**
 * The layout of `model`'s stage prompts: split where exact budgets and fit proofs are on and the model's
 * template partitions a context message (the probe is asked right before the model's first call, since
 * a router loads the model a request names), joined otherwise. The same for every stage of the turn.
 */
export function promptLayout(turn: TurnState, deps: Pick<EngineDeps, 'fitBounds'>, model: string): Promise<PromptLayout> {
  const fitBounds = deps.fitBounds;
  if (!turn.profile.context.exactTokenizer || !fitBounds) return Promise.resolve('joined');
  let layout = turn.fit.layouts.get(model);
  if (!layout) {
    layout = fitBounds.partitions(model).then((sealed): PromptLayout => (sealed ? 'split' : 'joined'));
    turn.fit.layouts.set(model, layout);
  }
  return layout;
}

/** Keeps the Answer's exact prompt tokens for later stages, when its request is the split layout. */
export function noteAnswerCount(turn: TurnState, body: ChatRequest, tokens: number): void {
  const parts = body.messages.length === 2 ? blockParts(body.messages[0]) : undefined;
  if (!parts || parts.tail !== '' || !(tokens > 0)) return;
  turn.fit.anchor = { model: body.model, block: parts.block, tokens };
}

/** The tightest sound upper bound on `body`'s prompt tokens, or null when none is proven. */
export async function proveFit(turn: TurnState, deps: Pick<EngineDeps, 'fitBounds'>, body: ChatRequest): Promise<FitProof | null> {
  const fitBounds = deps.fitBounds;
  if (!fitBounds) return null;
  const anchor = turn.fit.anchor;
  const [anchored, bytes] = await Promise.all([anchor ? fitBounds.anchoredBound(body, anchor) : null, fitBounds.bound(body)]);
  if (anchored !== null && (bytes === null || anchored <= bytes)) return { bound: anchored, basis: 'answer_count' };
  return bytes === null ? null : { bound: bytes, basis: 'bytes' };
}
