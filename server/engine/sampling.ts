/** Sampling of model calls (§4.6): profile knobs first, then the request, then configured defaults. */
import type { Config } from '../config';
import type { ChatRequest } from '../llm';
import type { Profile } from '../profiles';
import type { ChatCompletionRequest } from './types';

/** Writer sampling, shared by Answer and In-Depth synthesis (both use the `answer` knobs). */
export function writerSampling(profile: Profile, request: ChatCompletionRequest, config: Config, role: 'answer' | 'indepth' | 'second' = 'answer'): Partial<ChatRequest> {
  // In-Depth synthesis and the second writer share the writer's knobs, unless a plan sets their own.
  const knobs = (role !== 'answer' ? profile.knobs[role] : undefined) ?? profile.knobs.answer ?? {};
  const out: Partial<ChatRequest> = {
    temperature: knobs.temperature ?? Math.max(request.temperature ?? 0, 0.5),
    repeat_penalty: knobs.repeat_penalty ?? config.synthRepeatPenalty,
    dry_multiplier: knobs.dry ?? config.synthDryMultiplier,
  };
  const requested = typeof request.max_tokens === 'number' && request.max_tokens > 0 ? request.max_tokens : undefined;
  // Exact-budget profiles default to their reserved output (the budget guard caps it there, §5.7).
  const fallback = profile.context.exactTokenizer ? profile.context.reservedOutputTokens : config.llmMaxTokens;
  out.max_tokens = requested ?? knobs.max_tokens ?? fallback;
  return out;
}
