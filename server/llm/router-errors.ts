/**
 * Maps router and transport failures to the hub's wire errors (router.md §4). Messages name the router
 * only by its reduced URL, so neither keys nor userinfo can leak; router texts are truncated because
 * a router may echo (parts of) the request body back.
 */
import { HubError, InsufficientContextError, ModelUnavailableError, RouterBusyError, RouterTimeoutError, TokenizationUnavailableError } from '../errors';
import { reduceUrl } from '../sanitize';

const ROUTER_MESSAGE_LIMIT = 300;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The router's OpenAI-style error body `{"error":{"code","message","type",…}}`, when it is one. */
export interface RouterErrorBody {
  message: string;
  type: string | null;
  fields: Record<string, unknown>;
}

/** Transport error code, looking through undici's `cause` and happy-eyeballs `AggregateError`s. */
export function transportCode(err: unknown): string | null {
  let cur: unknown = err;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_REQ_RETRY') return code;
    const errors = (cur as { errors?: unknown }).errors;
    cur = (cur as { cause?: unknown }).cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return null;
}

/** A header/body idle timeout is `router_timeout`; anything else on the wire means the router is unreachable. */
export function mapTransportError(err: unknown, baseUrl: string, midStream = false): HubError {
  if (err instanceof HubError) return err;
  const code = transportCode(err) ?? 'transport error';
  const where = reduceUrl(baseUrl);
  if (TIMEOUT_CODES.has(code)) {
    return new RouterTimeoutError(`The model router at ${where} went silent for longer than the idle timeout (${code}).`);
  }
  if (midStream) {
    // The router answered and then the connection broke: a failed call, not an unreachable router.
    return new HubError('router_error', `The connection to the model router at ${where} broke mid-response (${code}).`);
  }
  return new HubError('router_unreachable', `Cannot reach the model router at ${where} (${code}).`);
}

export function truncate(s: string, limit = ROUTER_MESSAGE_LIMIT): string {
  return s.length > limit ? `${s.slice(0, limit)}…` : s;
}

export function parseRouterErrorBody(text: string): RouterErrorBody {
  try {
    const parsed: unknown = JSON.parse(text);
    const err = parsed && typeof parsed === 'object' ? (parsed as { error?: unknown }).error : undefined;
    if (err && typeof err === 'object') {
      const fields = err as Record<string, unknown>;
      const message = typeof fields.message === 'string' ? fields.message : JSON.stringify(err);
      return { message, type: typeof fields.type === 'string' ? fields.type : null, fields };
    }
    if (typeof err === 'string') return { message: err, type: null, fields: {} };
  } catch {
    // Not JSON: the raw text (truncated by the caller) is the best message there is.
  }
  return { message: text.trim(), type: null, fields: {} };
}

/** llama-server answers 503 `Loading model` while a model starts; the call is worth retrying. */
export function isLoadingModel(status: number, body: RouterErrorBody): boolean {
  return status === 503 && /loading model/i.test(body.message);
}

export function routerUnavailable(attempts: number): HubError {
  return new HubError('router_unavailable', `The model router is still loading the model after ${attempts} attempts; retry shortly.`, {
    headers: { 'Retry-After': '5' },
  });
}

function retryAfter(headers: Record<string, string | string[] | undefined>): string {
  const raw = headers['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value && /^\d{1,6}$/.test(value.trim()) ? value.trim() : '1';
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function insufficientContext(body: RouterErrorBody, model: string | undefined): HubError {
  const nPrompt = num(body.fields.n_prompt_tokens);
  const nCtx = num(body.fields.n_ctx);
  const who = model ? `model '${model}'` : 'the model';
  return new InsufficientContextError(
    'llama-router',
    `The prompt (${nPrompt ?? '?'} tokens) exceeds the context window of ${who} (${nCtx ?? '?'} tokens per slot).`,
    { n_prompt_tokens: nPrompt, n_ctx: nCtx },
  );
}

/** Maps a non-2xx router reply (other than a retryable `Loading model`) to the hub's error. */
export function mapRouterHttpError(
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined>,
  model?: string,
): HubError {
  const body = parseRouterErrorBody(text);
  if (status === 400 && body.type === 'exceed_context_size_error') return insufficientContext(body, model);
  if (status === 400 && /model '.*' not found|model is not loaded/i.test(body.message)) {
    return new ModelUnavailableError(`The model router cannot serve ${model ? `model '${model}'` : 'the model'}: ${truncate(body.message)}`, {
      extra: { source: 'llama-router' },
    });
  }
  if (status === 429) {
    return new RouterBusyError('The model router is busy; retry shortly.', { headers: { 'Retry-After': retryAfter(headers) } });
  }
  const detail = body.message ? `: ${truncate(body.message)}` : '';
  return new HubError('router_error', `The model router answered HTTP ${status}${detail}`, { extra: { router_status: status } });
}

export function malformedRouterBody(what: string): HubError {
  return new HubError('router_error', `The model router sent a malformed ${what}.`);
}

export function routerBodyTooLarge(limit: number): HubError {
  return new HubError('router_error', `The model router's response exceeded ${limit} bytes.`);
}

export function streamFailed(message: string): HubError {
  return new HubError('router_error', `The model router failed mid-stream: ${truncate(message)}`);
}

export function tokenizationUnavailable(message: string): HubError {
  return new TokenizationUnavailableError('llama-router', truncate(message, 400));
}
