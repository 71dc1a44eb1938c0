/**
 * The exact figures of a role prompt, from the model backend (hub-contract §10.1 "Token evidence"):
 * the rendered prompt (`/apply-template`), its exact token count (§5.7: `input_tokens`, else
 * template + `/tokenize`, or a configured local tokenizer) and the model's advertised per-slot window
 * (`meta.n_ctx` of the live inventory). A figure the backend cannot give is null with a stable reason,
 * never an estimate (decision 7). Cancellation propagates; every other failure becomes a reason.
 */
import { isAbortError } from '../errors';
import { abortErrorFrom, createTokenCounter, type LocalTokenizer, type ChatMessage, type ModelInventory, type RouterClient } from '../llm';
import { UNAVAILABLE, type PromptMeasurement } from './types';

export interface MeasureDeps {
  router: RouterClient;
  localTokenizer: LocalTokenizer | null;
}

/** The per-slot context the backend advertises for `model`, or null when it advertises none (not loaded, unreachable). */
export function advertisedWindow(inv: ModelInventory, model: string): number | null {
  if (!inv.reachable || !Object.hasOwn(inv.entries, model)) return null;
  const meta = inv.entries[model].meta;
  const nCtx = meta && typeof meta === 'object' ? (meta as { n_ctx?: unknown }).n_ctx : undefined;
  return typeof nCtx === 'number' && Number.isInteger(nCtx) && nCtx > 0 ? nCtx : null;
}

async function orReason<T>(work: () => Promise<T>): Promise<{ value: T } | { failed: true }> {
  try {
    return { value: await work() };
  } catch (err) {
    if (isAbortError(err)) throw err;
    return { failed: true };
  }
}

export async function measurePrompt(
  deps: MeasureDeps,
  req: { model: string; messages: ChatMessage[] },
  inv: ModelInventory,
  signal: AbortSignal,
): Promise<PromptMeasurement> {
  const counter = createTokenCounter({ router: deps.router, local: deps.localTokenizer }, { signal });
  const [rendered, counted] = await Promise.all([
    orReason(() => deps.router.applyTemplate({ model: req.model, messages: req.messages }, { signal })),
    orReason(() => counter.countChat({ model: req.model, messages: req.messages })),
  ]);
  if (signal.aborted) throw abortErrorFrom(signal);
  const contextWindow = advertisedWindow(inv, req.model);
  return {
    renderedPrompt: 'value' in rendered ? rendered.value : null,
    ...('value' in rendered ? {} : { renderedPromptReason: UNAVAILABLE.renderer }),
    promptTokens: 'value' in counted ? counted.value : null,
    ...('value' in counted ? {} : { promptTokensReason: UNAVAILABLE.tokenizer }),
    contextWindow,
    ...(contextWindow === null ? { contextWindowReason: UNAVAILABLE.contextWindow } : {}),
  };
}
