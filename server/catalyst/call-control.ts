/**
 * How a role call may end early (hub-contract §10.1, decisions 6 and 23): no deadline by default; an
 * optional `X-Request-Timeout-Seconds` (decimals accepted) applied as a deadline clamped to the hub's
 * maximum; a client disconnect or a hub shutdown cancels. One AbortSignal carries all three to the
 * model call, and `cause()` says which one fired so the response names it.
 */
import type { Request, Response } from 'express';
import { HubError } from '../errors';

export const TIMEOUT_HEADER = 'x-request-timeout-seconds';

export type EndCause = 'cancelled' | 'timeout';

export interface CallControl {
  readonly signal: AbortSignal;
  /** The applied deadline in seconds, or null when the call has none. */
  readonly deadlineSeconds: number | null;
  cause(): EndCause | null;
  /** Stops the deadline timer and the listeners (call when the response is settled). */
  dispose(): void;
}

/**
 * The header's value in seconds, clamped to `maxSeconds`; null when absent or blank. A value that is not a
 * positive decimal number is a malformed request (400), never silently ignored.
 */
export function parseTimeoutHeader(value: string | undefined, maxSeconds: number): number | null {
  const text = value?.trim() ?? '';
  // An empty header carries no deadline: the call waits, as without one.
  if (text === '') return null;
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new HubError('invalid_request_error', `Invalid request: header X-Request-Timeout-Seconds must be a positive number of seconds (got '${text.slice(0, 40)}').`, {
      param: 'X-Request-Timeout-Seconds',
    });
  }
  return Math.min(seconds, maxSeconds);
}

export function controlCall(req: Request, res: Response, opts: { maxTimeoutSeconds: number; shutdown?: AbortSignal }): CallControl {
  const deadlineSeconds = parseTimeoutHeader(req.header(TIMEOUT_HEADER), opts.maxTimeoutSeconds);
  const controller = new AbortController();
  let cause: EndCause | null = null;
  const end = (why: EndCause) => {
    if (cause) return;
    cause = why;
    controller.abort(new DOMException(why === 'timeout' ? 'The role call deadline passed' : 'The role call was cancelled', 'AbortError'));
  };
  // `close` before the response finished means the client went away (or the socket broke).
  const onClose = () => {
    if (!res.writableFinished) end('cancelled');
  };
  const onShutdown = () => end('cancelled');
  res.on('close', onClose);
  opts.shutdown?.addEventListener('abort', onShutdown, { once: true });
  // The client may have gone while the body was read, before this listener existed.
  if (opts.shutdown?.aborted || res.destroyed || req.socket.destroyed) end('cancelled');
  const timer = deadlineSeconds === null ? null : setTimeout(() => end('timeout'), deadlineSeconds * 1000);
  timer?.unref();
  return {
    signal: controller.signal,
    deadlineSeconds,
    cause: () => cause,
    dispose() {
      if (timer) clearTimeout(timer);
      res.off('close', onClose);
      opts.shutdown?.removeEventListener('abort', onShutdown);
    },
  };
}
