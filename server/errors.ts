/**
 * One error type for every failure the hub reports on the wire (decision 1).
 * `code` is the stable machine code clients read (`detail.code`), `status` the HTTP status,
 * `extra` any additional `detail` fields (e.g. `model`, `configured_profiles`, `source`).
 */
export class HubError extends Error {
  readonly code: string;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  /** OpenAI error `type`; defaults from the status. */
  readonly type: string;
  /** OpenAI error `param` (the offending request field), when known. */
  readonly param: string | null;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;
  /**
   * `detail.code` when a deployed client family pins another name for this error (Catalyst's
   * `context_window_exceeded`); `code` stays the hub's own code in `error.code`. Defaults to `code`.
   */
  readonly detailCode: string;

  constructor(
    code: string,
    status: number,
    message: string,
    options: { extra?: Record<string, unknown>; type?: string; param?: string | null; headers?: Record<string, string>; detailCode?: string } = {},
  ) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.status = status;
    this.extra = options.extra ?? {};
    this.type = options.type ?? defaultType(status);
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.detailCode = options.detailCode ?? code;
  }
}

function defaultType(status: number): string {
  if (status === 400 || status === 404 || status === 413 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 503) return 'unavailable_error';
  return 'server_error';
}

/** Context-source errors carry a `source` (§5.1); they travel as `event: error` on staged streams. */
export function contextError(code: string, status: number, source: string, message: string, extra: Record<string, unknown> = {}): HubError {
  return new HubError(code, status, message, { extra: { source, ...extra } });
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
