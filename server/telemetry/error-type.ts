/**
 * `error.type` of a failed span: the error catalogue's code, never the error's message (a hub error's
 * message may quote a chart or the model's output, and a span must carry no patient text).
 */
import { HubError, isAbortError } from '../errors';

/** The semantic conventions' value for an error of no known type. */
const OTHER = '_OTHER';

export function errorTypeOf(err: unknown, aborted = false): string {
  if (err instanceof HubError) return err.code;
  if (aborted || isAbortError(err)) return 'cancelled';
  return OTHER;
}
