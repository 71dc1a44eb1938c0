/**
 * The client's errors. An HTTP failure becomes one class per status (and `detail.code` where a caller
 * branches on it), chosen in one place: `errorFromResponse`. Each class carries a `kind`, the canonical
 * name the conformance protocol compares across the JS and Java clients (clients/conformance/PROTOCOL.md).
 */

/** The hub's error body (decision 1): the OpenAI `error` object beside the hub's `detail`. */
export interface ErrorBody {
  error?: { message?: string; type?: string; param?: string | null; code?: string | null };
  /** An object `{code, message, …}`; a list `{loc, msg, type}[]` on knowledge-layer validation errors (decision 18). */
  detail?: unknown;
}

/** Anything this client throws on purpose. */
export class HubClientError extends Error {
  static readonly kind: string = 'HubClientError';
  get kind(): string {
    return (this.constructor as typeof HubClientError).kind;
  }
}

/** The hub answered with a non-2xx status. */
export class APIError extends HubClientError {
  static override readonly kind: string = 'APIError';
  readonly status: number;
  /** `detail.code`, else `error.code`, else null. */
  readonly code: string | null;
  /** The body's `detail` as sent (an object for the hub's own errors). */
  readonly detail: unknown;
  readonly body: ErrorBody | string | null;
  readonly headers: Headers;

  constructor(status: number, message: string, body: ErrorBody | string | null, headers: Headers) {
    super(message);
    this.name = new.target.kind;
    this.status = status;
    this.body = body;
    this.headers = headers;
    const parsed = typeof body === 'object' && body !== null ? body : {};
    this.detail = parsed.detail ?? null;
    this.code = detailCode(parsed.detail) ?? (typeof parsed.error?.code === 'string' ? parsed.error.code : null);
  }

  /** `Retry-After` in seconds, when the hub sent one (busy router, stopping hub, spent quota). */
  get retryAfterSeconds(): number | null {
    const raw = this.headers.get('retry-after');
    return raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : null;
  }
}

export class BadRequestError extends APIError { static override readonly kind: string = 'BadRequestError'; }
export class AuthenticationError extends APIError { static override readonly kind: string = 'AuthenticationError'; }
export class PermissionDeniedError extends APIError { static override readonly kind: string = 'PermissionDeniedError'; }
export class NotFoundError extends APIError { static override readonly kind: string = 'NotFoundError'; }
export class RequestTooLargeError extends APIError { static override readonly kind: string = 'RequestTooLargeError'; }
export class UnprocessableEntityError extends APIError { static override readonly kind: string = 'UnprocessableEntityError'; }
export class RateLimitError extends APIError { static override readonly kind: string = 'RateLimitError'; }
export class ServiceUnavailableError extends APIError { static override readonly kind: string = 'ServiceUnavailableError'; }
export class InternalServerError extends APIError { static override readonly kind: string = 'InternalServerError'; }

/** The prompt and its mandatory evidence do not fit the model's window: `detail` names what could not fit. */
export class InsufficientContextError extends UnprocessableEntityError {
  static override readonly kind: string = 'InsufficientContextError';
  declare readonly detail: InsufficientContextDetail;
}

/** The backend cannot serve the model at all (no file, a failed load): retrying will not help. */
export class ModelUnavailableError extends ServiceUnavailableError {
  static override readonly kind: string = 'ModelUnavailableError';
}

export interface InsufficientContextDetail {
  code: 'insufficient_context' | 'context_window_exceeded';
  message: string;
  source?: string;
  mandatory_ids?: string[];
  [key: string]: unknown;
}

/** No HTTP response at all: refused, reset, DNS, or no headers within `timeoutMs`. */
export class ConnectionError extends HubClientError {
  static override readonly kind: string = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.kind;
  }
}

export class ConnectionTimeoutError extends ConnectionError {
  static override readonly kind: string = 'ConnectionTimeoutError';
}

/** The hub's answer broke the wire contract (a non-object SSE data, the retired flat In-Depth shape, …). */
export class ProtocolError extends HubClientError {
  static override readonly kind: string = 'ProtocolError';
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** A Catalyst evidence digest that does not match what the client recomputes (RFC 8785 / SHA-256). */
export class EvidenceDigestError extends HubClientError {
  static override readonly kind: string = 'EvidenceDigestError';
  constructor(readonly field: string, readonly expected: string, readonly received: unknown) {
    super(`Evidence digest mismatch at ${field}: computed ${expected}, the hub sent ${String(received)}`);
    this.name = 'EvidenceDigestError';
  }
}

/** A staged stream that ended with `event: error` (thrown by `StagedStream.finalEnvelope()`, never mid-iteration). */
export class StreamError extends HubClientError {
  static override readonly kind: string = 'StreamError';
  constructor(readonly code: string, readonly source: string, message: string) {
    super(message);
    this.name = 'StreamError';
  }
}

function detailCode(detail: unknown): string | null {
  if (detail && typeof detail === 'object' && !Array.isArray(detail)) {
    const code = (detail as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return null;
}

/** Catalyst's 422 names the overflow its own way in `detail.code`; the hub's code stays in `error.code`. */
function isInsufficientContext(body: ErrorBody): boolean {
  return detailCode(body.detail) === 'insufficient_context' || body.error?.code === 'insufficient_context';
}

type APIErrorClass = new (status: number, message: string, body: ErrorBody | string | null, headers: Headers) => APIError;

const BY_STATUS: ReadonlyMap<number, APIErrorClass> = new Map<number, APIErrorClass>([
  [400, BadRequestError],
  [401, AuthenticationError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [413, RequestTooLargeError],
  [422, UnprocessableEntityError],
  [429, RateLimitError],
  [503, ServiceUnavailableError],
]);

/** The one mapping point from an HTTP failure to its error class (PROTOCOL.md, "Errors"). */
export function errorClassFor(status: number, body: ErrorBody): APIErrorClass {
  if (status === 422 && isInsufficientContext(body)) return InsufficientContextError;
  if (status === 503 && detailCode(body.detail) === 'model_unavailable') return ModelUnavailableError;
  const byStatus = BY_STATUS.get(status);
  if (byStatus) return byStatus;
  return status >= 500 ? InternalServerError : APIError;
}

/** Reads a failed response's body (JSON when it is JSON) and builds its error. */
export async function errorFromResponse(res: Response): Promise<APIError> {
  const text = await res.text().catch(() => '');
  let body: ErrorBody | string | null = text === '' ? null : text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as ErrorBody;
  } catch {
    // Not JSON (a proxy's HTML page): the text is kept as the body.
  }
  const structured = typeof body === 'object' && body !== null ? body : {};
  const Cls = errorClassFor(res.status, structured);
  return new Cls(res.status, messageOf(res.status, structured, text), body, res.headers);
}

function messageOf(status: number, body: ErrorBody, text: string): string {
  const detail = body.detail;
  if (detail && typeof detail === 'object' && !Array.isArray(detail) && typeof (detail as { message?: unknown }).message === 'string') {
    return `${status} ${(detail as { message: string }).message}`;
  }
  if (typeof body.error?.message === 'string') return `${status} ${body.error.message}`;
  return `${status} ${text.slice(0, 200) || 'status code (no body)'}`;
}
