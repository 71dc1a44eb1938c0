/**
 * The errors of the role endpoints (clients.md §5), in the decision-1 shape: 404 unknown profile or role,
 * 422 known overflow, 502 backend failure or empty content, 504 `generation_timeout`, 499
 * `generation_cancelled`. Evidence rides on `detail.request_evidence`, only when it is complete.
 */
import { GenerationCancelledError, GenerationTimeoutError, HubError, InsufficientContextError, RouterBusyError, RouterTimeoutError } from '../errors';
import type { RequestEvidence } from './types';

/**
 * Catalyst records a role call as rejected before dispatch only when a 422's `detail.code` is this;
 * the hub's own code (`error.code`, and `detail.hub_code`) stays `insufficient_context`.
 */
export const CATALYST_OVERFLOW_CODE = 'context_window_exceeded';

export function generationCancelled(): HubError {
  return new GenerationCancelledError('The role call was cancelled before the model finished; nothing was generated for it.');
}

export function generationTimeout(seconds: number): HubError {
  return new GenerationTimeoutError(`The role call did not finish within its ${seconds} s deadline (X-Request-Timeout-Seconds); the model call was cancelled.`);
}

export function emptyContent(model: string): HubError {
  return new HubError('model_empty_content', `Model '${model}' returned no content.`);
}

export function knownOverflowError(required: number, window: number): HubError {
  return overflowForCatalyst(new InsufficientContextError('catalyst_role', `The role prompt needs ${required} tokens (prompt plus the role's output allowance) but the model's context window is ${window} tokens.`));
}

/** A context overflow (the hub's known one, or the router's own refusal) named as Catalyst reads it. */
function overflowForCatalyst(err: HubError): HubError {
  return err.derive({ extra: { ...err.extra, hub_code: err.code }, detailCode: CATALYST_OVERFLOW_CODE });
}

/**
 * Backend failures as Catalyst reads them: a busy queue stays 503 `router_busy` (decision 5), the router's
 * own context refusal stays 422 (named `context_window_exceeded` like the hub's), an idle timeout is a `generation_timeout`, anything else is 502.
 */
export function asRoleError(err: HubError): HubError {
  if (err instanceof InsufficientContextError && err.detailCode !== CATALYST_OVERFLOW_CODE) return overflowForCatalyst(err);
  if (err instanceof RouterBusyError || err.status === 422 || err.status === 404 || err.status === 400 || err.status === 502) return err;
  if (err instanceof RouterTimeoutError) return new GenerationTimeoutError(err.message);
  return err.derive({ status: 502 });
}

/** The same error with the request's evidence in `detail` (the evidence is complete by construction). */
export function withRequestEvidence(err: HubError, evidence: RequestEvidence | null): HubError {
  if (!evidence) return err;
  return err.derive({ extra: { ...err.extra, request_evidence: evidence } });
}
