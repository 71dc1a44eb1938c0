/**
 * One HTTP exchange with the hub: URL, headers and key, a bound on the wait for response headers only
 * (the hub may work for minutes after them: decision 6), the caller's AbortSignal, and every non-2xx
 * turned into its error class by errors.ts.
 */
import { ConnectionError, ConnectionTimeoutError, errorFromResponse } from './errors.js';

export interface TransportOptions {
  baseURL: string;
  apiKey?: string;
  fetch: typeof fetch;
  /** Longest wait for the response headers (not for the body). */
  timeoutMs: number;
  headers: Record<string, string>;
}

export interface SendOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** The key for this route family (the knowledge layer has its own `lsk_` keys); default: `apiKey`. */
  apiKey?: string;
}

/** A response whose headers arrived with a 2xx status, and the controller that can still cut its body. */
export interface Opened {
  response: Response;
  /** Aborting it closes the connection (a staged stream's `break`). */
  controller: AbortController;
}

class HeaderTimeout extends Error {}

export class Transport {
  constructor(readonly options: TransportOptions) {}

  url(path: string): string {
    let base = this.options.baseURL;
    while (base.endsWith('/')) base = base.slice(0, -1);
    return `${base}${path}`;
  }

  async open(path: string, opts: SendOptions = {}): Promise<Opened> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(opts.signal?.reason);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new HeaderTimeout()), this.options.timeoutMs);
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...opts.headers };
    const key = opts.apiKey ?? this.options.apiKey;
    if (key) headers.authorization = `Bearer ${key}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.options.fetch(this.url(path), {
        method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
        headers,
        body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
        signal: controller.signal,
      });
    } catch (err) {
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      if (controller.signal.reason instanceof HeaderTimeout) {
        throw new ConnectionTimeoutError(`No response headers from ${this.url(path)} within ${this.options.timeoutMs} ms`, { cause: err });
      }
      throw new ConnectionError(`Cannot reach ${this.url(path)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) {
      opts.signal?.removeEventListener('abort', onAbort);
      throw await errorFromResponse(response);
    }
    return { response, controller };
  }

  /** A JSON answer (or `undefined` for 204 No Content). */
  async json<T>(path: string, opts: SendOptions = {}): Promise<T> {
    const { response } = await this.open(path, opts);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}
