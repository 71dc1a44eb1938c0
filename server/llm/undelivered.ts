/**
 * Which failed calls never reached a model, as only the router client can tell (issue #32's failover).
 *
 * The boundary is the router's 2xx response headers. Until they arrive nothing the model wrote has reached
 * the hub: no token was streamed to a caller and no usage was reported, so the same request may be sent to
 * another replica without streaming twice or counting twice. After them the call has reached a model and is
 * never sent again. The client marks, when it throws them, the failures on the near side of that boundary:
 *
 * - no connection (refused, connect timeout, reset) or a connection lost before any response headers;
 * - an answer that says the router did not run the call: 502 / 503 (a loading model, a proxy without its
 *   upstream) and 429 (the router is busy);
 * - the hub's own slot queue for that backend is full (`router_busy` before anything is sent).
 *
 * `backendFault` says whether the failure speaks of the backend rather than of load (a full queue, a 429 are
 * not faults). An idle timeout waiting for headers is never marked: the router has the request and may be
 * generating (a non-streamed completion sends its headers only when it is done). One honest cost remains: a
 * non-streamed call whose connection breaks before its headers may have been generating on a replica that is
 * going away; sending it elsewhere repeats that work, never its output.
 */
export interface Undelivered {
  /** The backend is down or refusing (connection failure, 502/503), not merely full. */
  backendFault: boolean;
}

const marks = new WeakMap<object, Undelivered>();

/** Marks `err` as a call that never reached a model; returns it for `throw`. */
export function markUndelivered<E>(err: E, backendFault: boolean): E {
  if (typeof err === 'object' && err !== null) marks.set(err, { backendFault });
  return err;
}

/** The mark of a failure that never reached a model, or undefined (reached one, or unknown: never re-sent). */
export function undelivered(err: unknown): Undelivered | undefined {
  return typeof err === 'object' && err !== null ? marks.get(err) : undefined;
}

/** HTTP statuses with which a router says it did not run the call. */
export function undeliveredStatus(status: number): Undelivered | undefined {
  if (status === 502 || status === 503) return { backendFault: true };
  if (status === 429) return { backendFault: false };
  return undefined;
}
