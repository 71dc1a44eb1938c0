/**
 * One error type for every failure the hub reports on the wire (decision 1), and the catalogue of its
 * codes: each code's HTTP status, OpenAI error `type` and retryability are stated once, in
 * `ERROR_CATALOGUE`; an error built by code takes them from there. Callers that decide on a failure
 * branch on a subclass below (or `isAbortError`), never on a code string (eslint enforces it).
 */

/** Every `error.code` the hub (and its knowledge layer, in Locus's upper-case names) sends. */
export type HubErrorCode =
  | 'invalid_request_error'
  | 'product_profile_required'
  | 'authentication_required'
  | 'invalid_api_key'
  | 'unreviewed_not_allowed'
  | 'not_found'
  | 'model_not_found'
  | 'profile_not_found'
  | 'role_not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'request_too_large'
  | 'insufficient_context'
  | 'generation_cancelled'
  | 'internal_error'
  | 'prompt_unavailable'
  | 'stage_not_implemented'
  | 'router_error'
  | 'router_unreachable'
  | 'model_empty_content'
  | 'hub_shutting_down'
  | 'router_busy'
  | 'router_unavailable'
  | 'model_unavailable'
  | 'model_backend_unreachable'
  | 'tokenization_unavailable'
  | 'context_source_unavailable'
  | 'context_source_failed'
  | 'knowledge_unavailable'
  | 'router_timeout'
  | 'generation_timeout'
  | 'AUTH_MISSING'
  | 'AUTH_INVALID_FORMAT'
  | 'AUTH_INVALID_KEY'
  | 'AUTH_CLIENT_INACTIVE'
  | 'RATE_LIMIT';

export type HubErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'unavailable_error'
  | 'server_error';

export interface ErrorCodeSpec {
  status: number;
  type: HubErrorType;
  /** The same request, sent again unchanged, may succeed later (a busy, loading, stopping or unreachable backend). */
  retryable: boolean;
  meaning: string;
}

const spec = (status: number, type: HubErrorType, retryable: boolean, meaning: string): ErrorCodeSpec => ({ status, type, retryable, meaning });

/** The one mapping point from a code to its wire status, type and retryability. */
export const ERROR_CATALOGUE: Readonly<Record<HubErrorCode, ErrorCodeSpec>> = {
  invalid_request_error: spec(400, 'invalid_request_error', false, 'The body, a field or a header is malformed (a body-parser refusal keeps its own 4xx).'),
  product_profile_required: spec(400, 'invalid_request_error', false, 'This client accepts configured product profiles only.'),
  authentication_required: spec(401, 'authentication_error', false, 'The hub has API keys and the request sent none.'),
  invalid_api_key: spec(403, 'permission_error', false, 'The API key is not one of the hub\'s keys.'),
  unreviewed_not_allowed: spec(403, 'permission_error', false, 'The knowledge request asked for unreviewed units on a deployment that refuses them.'),
  not_found: spec(404, 'invalid_request_error', false, 'No such route, or a route whose backing service is not configured.'),
  model_not_found: spec(404, 'invalid_request_error', false, 'The model id is neither a configured profile nor a valid low-level leg.'),
  profile_not_found: spec(404, 'invalid_request_error', false, 'Not a configured Catalyst query profile.'),
  role_not_found: spec(404, 'invalid_request_error', false, 'The query profile has no such role.'),
  method_not_allowed: spec(405, 'server_error', false, 'The stateless MCP endpoint takes POST only.'),
  not_acceptable: spec(406, 'server_error', false, 'The Accept header allows none of the representations offered.'),
  request_too_large: spec(413, 'invalid_request_error', false, 'The body is larger than HUB_MAX_BODY_BYTES.'),
  insufficient_context: spec(422, 'invalid_request_error', false, 'The prompt and mandatory evidence do not fit the model\'s context window.'),
  generation_cancelled: spec(499, 'server_error', false, 'A Catalyst call was cancelled (the caller left or the hub is stopping).'),
  internal_error: spec(500, 'server_error', false, 'An unexpected failure inside the hub.'),
  prompt_unavailable: spec(500, 'server_error', false, 'A profile\'s prompt file is missing or misnamed.'),
  stage_not_implemented: spec(501, 'server_error', false, 'The profile needs a stage or output mode this build does not run.'),
  router_error: spec(502, 'server_error', false, 'The model backend failed the call or answered something unusable.'),
  router_unreachable: spec(502, 'server_error', true, 'The model router could not be reached.'),
  model_empty_content: spec(502, 'server_error', false, 'The model returned no content for a role call.'),
  hub_shutting_down: spec(503, 'unavailable_error', true, 'The hub is stopping (Retry-After).'),
  router_busy: spec(503, 'unavailable_error', true, 'Every model slot is busy or the queue is full (Retry-After).'),
  router_unavailable: spec(503, 'unavailable_error', true, 'The model backend is still loading the model or is stopping.'),
  model_unavailable: spec(503, 'unavailable_error', false, 'The backend cannot serve this model at all (no file, a failed load).'),
  model_backend_unreachable: spec(503, 'unavailable_error', true, 'The model backend could not be asked for its catalogue (Retry-After).'),
  tokenization_unavailable: spec(503, 'unavailable_error', true, 'Exact token counting failed; the hub never estimates instead.'),
  context_source_unavailable: spec(503, 'unavailable_error', true, 'A context source is not configured, not applicable or not reachable.'),
  context_source_failed: spec(503, 'unavailable_error', true, 'A context source answered with a failure or inconsistent records.'),
  knowledge_unavailable: spec(503, 'unavailable_error', true, 'The knowledge store failed to answer.'),
  router_timeout: spec(504, 'server_error', true, 'The model router went silent for longer than the idle timeout.'),
  generation_timeout: spec(504, 'server_error', false, 'A Catalyst call passed its X-Request-Timeout-Seconds deadline.'),
  AUTH_MISSING: spec(401, 'authentication_error', false, 'Knowledge layer: no client key was sent (or none is configured).'),
  AUTH_INVALID_FORMAT: spec(401, 'authentication_error', false, 'Knowledge layer: the key is not of the form lsk_<slug>_<32 hex>.'),
  AUTH_INVALID_KEY: spec(401, 'authentication_error', false, 'Knowledge layer: the key is unknown or revoked.'),
  AUTH_CLIENT_INACTIVE: spec(403, 'permission_error', false, 'Knowledge layer: the client is inactive.'),
  RATE_LIMIT: spec(429, 'rate_limit_error', true, 'Knowledge layer: the client\'s daily quota is spent (Retry-After).'),
};

export interface HubErrorOptions {
  /** Additional `detail` fields (e.g. `model`, `configured_profiles`, `source`). */
  extra?: Record<string, unknown>;
  /** OpenAI error `param` (the offending request field), when known. */
  param?: string | null;
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /** `detail.code` when a client family pins another name for this error; defaults to the code. */
  detailCode?: string;
  /**
   * Another status than the catalogue's, only where a lower layer fixes it (a body-parser 4xx; a
   * client family's own status goes through `derive`); the type then follows the status.
   */
  status?: number;
}

/** Codes callers branch on: each is built only as its subclass below (the base constructor refuses them). */
export type BranchedErrorCode =
  | ContextErrorCode
  | 'model_unavailable'
  | 'hub_shutting_down'
  | 'router_busy'
  | 'router_timeout'
  | 'generation_cancelled'
  | 'generation_timeout';

/** Passed by the subclasses below only, so `new HubError(<branched code>)` does not type-check elsewhere. */
const SUBCLASS: unique symbol = Symbol('HubError subclass');

export class HubError extends Error {
  readonly code: HubErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  /** OpenAI error `type`. */
  readonly type: HubErrorType;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  /**
   * `detail.code` when a deployed client family pins another name for this error (Catalyst's
   * `context_window_exceeded`); `code` stays the hub's own code in `error.code`.
   */
  readonly detailCode: string;

  constructor(code: Exclude<HubErrorCode, BranchedErrorCode>, message: string, options?: HubErrorOptions);
  constructor(code: HubErrorCode, message: string, options: HubErrorOptions, subclass: typeof SUBCLASS);
  constructor(code: HubErrorCode, message: string, options: HubErrorOptions = {}) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.status = options.status ?? ERROR_CATALOGUE[code].status;
    this.extra = options.extra ?? {};
    this.type = typeOf(code, this.status);
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.detailCode = options.detailCode ?? code;
  }

  /** Whether a client may send the same request again later (the catalogue's `retryable`). */
  get retryable(): boolean {
    return ERROR_CATALOGUE[this.code].retryable;
  }

  /**
   * This error (same class and code, param and headers) with another message, other `detail` fields,
   * another detail code or another status (its type then follows, as in the constructor): how a layer
   * adds what it knows without changing what a caller branches on.
   */
  derive(changes: { message?: string; extra?: Record<string, unknown>; detailCode?: string; status?: number }): this {
    const copy = Reflect.construct(Error, [changes.message ?? this.message], this.constructor) as this;
    const status = changes.status ?? this.status;
    const type = changes.status === undefined ? this.type : typeOf(this.code, status);
    return Object.assign(copy, this, { status, type, extra: changes.extra ?? this.extra, detailCode: changes.detailCode ?? this.detailCode });
  }
}

/** The catalogue's type, or the type an overriding status implies. */
function typeOf(code: HubErrorCode, status: number): HubErrorType {
  const row = ERROR_CATALOGUE[code];
  return status === row.status ? row.type : typeForStatus(status);
}

/** The type a status implies when a site overrides the catalogue's status (the hub's rule before the catalogue). */
function typeForStatus(status: number): HubErrorType {
  if (status === 400 || status === 404 || status === 413 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 503) return 'unavailable_error';
  return 'server_error';
}

/* Subclasses: one per failure a caller decides on. */

export type ContextErrorCode = 'insufficient_context' | 'context_source_unavailable' | 'context_source_failed' | 'tokenization_unavailable';

/** A failure to build the turn's context (§5.1): it names its `source`; before any Answer it is said as `event: error` or the HTTP error. */
export class ContextError extends HubError {
  declare readonly code: ContextErrorCode;
  constructor(code: 'context_source_unavailable' | 'context_source_failed', source: string, message: string, extra?: Record<string, unknown>);
  constructor(code: ContextErrorCode, source: string, message: string, extra: Record<string, unknown>, subclass: typeof SUBCLASS);
  constructor(code: ContextErrorCode, source: string, message: string, extra: Record<string, unknown> = {}) {
    super(code, message, { extra: { source, ...extra } }, SUBCLASS);
  }
}

/** The prompt and its mandatory evidence do not fit the window: callers may drop optional context or name what cannot be left out. */
export class InsufficientContextError extends ContextError {
  declare readonly code: 'insufficient_context';
  constructor(source: string, message: string, extra: Record<string, unknown> = {}) {
    super('insufficient_context', source, message, extra, SUBCLASS);
  }
}

/** Exact token counting failed (never an estimate instead). */
export class TokenizationUnavailableError extends ContextError {
  declare readonly code: 'tokenization_unavailable';
  constructor(source: string, message: string, extra: Record<string, unknown> = {}) {
    super('tokenization_unavailable', source, message, extra, SUBCLASS);
  }
}

/** A context error of the given code, of the subclass callers branch on. */
export function contextError(code: ContextErrorCode, source: string, message: string, extra: Record<string, unknown> = {}): ContextError {
  if (code === 'insufficient_context') return new InsufficientContextError(source, message, extra);
  if (code === 'tokenization_unavailable') return new TokenizationUnavailableError(source, message, extra);
  return new ContextError(code, source, message, extra);
}

/** The backend cannot serve this model at all: said to the caller with what to do, even mid-turn. */
export class ModelUnavailableError extends HubError {
  declare readonly code: 'model_unavailable';
  constructor(message: string, options: HubErrorOptions = {}) {
    super('model_unavailable', message, options, SUBCLASS);
  }
}

/** The hub is stopping: a running turn is settled, not reported as a failure of its own. */
export class ShuttingDownError extends HubError {
  declare readonly code: 'hub_shutting_down';
  constructor(message: string, options: HubErrorOptions = {}) {
    super('hub_shutting_down', message, options, SUBCLASS);
  }
}

/** Every model slot is busy or the queue is full: a client-visible 503 with Retry-After (decision 5). */
export class RouterBusyError extends HubError {
  declare readonly code: 'router_busy';
  constructor(message: string, options: HubErrorOptions = {}) {
    super('router_busy', message, options, SUBCLASS);
  }
}

/** The model router went silent for longer than the idle timeout. */
export class RouterTimeoutError extends HubError {
  declare readonly code: 'router_timeout';
  constructor(message: string, options: HubErrorOptions = {}) {
    super('router_timeout', message, options, SUBCLASS);
  }
}

/** A Catalyst call cancelled before the model finished (traced as `cancelled`). */
export class GenerationCancelledError extends HubError {
  declare readonly code: 'generation_cancelled';
  constructor(message: string, options: HubErrorOptions = {}) {
    super('generation_cancelled', message, options, SUBCLASS);
  }
}

/** A Catalyst call past its deadline (traced as `timed_out`). */
export class GenerationTimeoutError extends HubError {
  declare readonly code: 'generation_timeout';
  constructor(message: string, options: HubErrorOptions = {}) {
    super('generation_timeout', message, options, SUBCLASS);
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR');
}

/** Detail fields an `event: error` repeats from the HTTP body: what a caller needs to act (the missing model's file). */
const EVENT_FIELDS = ['model', 'expected_file'] as const;

/** The `event: error` data of a staged stream: `{code, source, message}` plus the actionable detail fields. */
export function errorEventData(err: HubError): Record<string, unknown> {
  const data: Record<string, unknown> = { code: err.code, source: String(err.extra.source ?? 'hub'), message: err.message };
  for (const k of EVENT_FIELDS) if (err.extra[k] !== undefined) data[k] = err.extra[k];
  return data;
}
