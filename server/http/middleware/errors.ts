/** The last two handlers of the app: 404 for a route nobody served, and the wire error for anything thrown. */
import type { NextFunction, Request, Response } from 'express';
import { HubError } from '../../errors';
import type { Logger } from '../../logger';
import { sendError } from '../../wire';

export function notFound(_req: Request, res: Response): void {
  sendError(res, new HubError('not_found', 'No such route.'));
}

/** Logs only the error's class name and the request id (a message may quote the request), then answers it. */
export function unhandledError(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    logger.error({ err: err instanceof Error ? err.name : 'unknown', request_id: res.locals.requestId }, 'unhandled error');
    sendError(res, err);
  };
}
