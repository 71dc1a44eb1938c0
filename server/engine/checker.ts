/**
 * Calls of the model checks (review, grounding, second writer): their sampling, whether a prompt
 * fits the checker's window, and a call that turns a failed check into "unavailable" instead of a
 * failed turn — a check that cannot run must never cost the clinician the Answer (decision 3).
 */
import { isAbortError } from '../errors';
import type { ChatRequest, ChatResult } from '../llm';
import type { Role } from '../profiles';
import { callModel } from './budget';
import { proveFit } from './fit';
import type { EngineDeps, TurnState } from './types';

/** Validators keep the sampling floor of §4.6 unless a knob (or the grounding policy) says otherwise. */
const CHECKER_TEMPERATURE_FLOOR = 0.5;

export function checkerSampling(turn: TurnState, deps: EngineDeps, role: Extract<Role, 'review' | 'grounding' | 'second'>): Partial<ChatRequest> {
  const knobs = turn.profile.knobs[role] ?? {};
  const policy = turn.profile.policies.review;
  const temperature = knobs.temperature ?? (role === 'grounding' ? policy?.groundingTemperature : null) ?? CHECKER_TEMPERATURE_FLOOR;
  const repeatPenalty = knobs.repeat_penalty ?? (role === 'grounding' ? policy?.groundingRepeatPenalty : null) ?? deps.config.synthRepeatPenalty;
  const budget = turn.profile.context;
  return {
    temperature,
    repeat_penalty: repeatPenalty,
    dry_multiplier: knobs.dry ?? deps.config.synthDryMultiplier,
    max_tokens: knobs.max_tokens ?? (budget.exactTokenizer ? budget.reservedOutputTokens : deps.config.llmMaxTokens),
  };
}

/**
 * Whether a request fits the profile's window with its output reserve (always true without a budget):
 * a sound bound that fits proves it without a count (decisions 24, 27); otherwise the exact count decides.
 */
export async function fitsWindow(turn: TurnState, deps: Pick<EngineDeps, 'fitBounds'>, body: ChatRequest): Promise<boolean> {
  const budget = turn.profile.context;
  if (!budget.exactTokenizer || !turn.accounting.tokens) return true;
  const output = Math.min(typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : budget.reservedOutputTokens, budget.reservedOutputTokens);
  const known = turn.accounting.tokens.knownChatCount(body);
  const proof = known ? null : await proveFit(turn, deps, body);
  if (proof !== null && proof.bound + output <= budget.window) return true;
  const input = await (known ?? turn.accounting.tokens.countChat(body));
  return input + output <= budget.window;
}

export type CheckerOutcome = { ok: true; result: ChatResult } | { ok: false; error: string };

/**
 * A model check's call. A cancelled turn still throws (it must stop); any other failure — router
 * down, a prompt that cannot fit, a counting failure — is returned as a failed check to settle.
 */
export async function callChecker(turn: TurnState, deps: EngineDeps, stage: string, body: ChatRequest): Promise<CheckerOutcome> {
  try {
    return { ok: true, result: await callModel(turn, deps, stage, body) };
  } catch (err) {
    if (turn.signal.aborted || isAbortError(err)) throw err;
    const code = err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : err instanceof Error ? err.name : 'unknown';
    return { ok: false, error: code };
  }
}
