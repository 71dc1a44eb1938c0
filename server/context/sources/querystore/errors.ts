/**
 * QueryStore failures as the client sees them (hub-contract §2.1): unreachable ⇒ `context_source_unavailable`,
 * anything else ⇒ `context_source_failed`, both 503 with `source: "querystore"`. The message names the patient
 * (the caller sent it); the hub's logs never carry these messages (only codes).
 */
import { contextError, type HubError } from '../../../errors';
import { QuerystoreError } from './types';

export function querystoreFailure(patient: string, err: QuerystoreError): HubError {
  const message = `Querystore could not retrieve patient '${patient}': ${err.message}`;
  if (err.kind === 'transport') return contextError('context_source_unavailable', 'querystore', message, { querystore_failure: err.kind });
  return contextError('context_source_failed', 'querystore', message, { querystore_failure: err.kind, ...(err.status !== null ? { querystore_status: err.status } : {}) });
}

/** The turn was cancelled: rethrown as an AbortError so the engine treats it as cancellation, not a failure. */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new Error('The turn was cancelled while QueryStore was being read.');
  err.name = 'AbortError';
  return err;
}

export function isQuerystoreError(err: unknown): err is QuerystoreError {
  return err instanceof QuerystoreError;
}
