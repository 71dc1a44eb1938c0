/**
 * One log line and one request metric per response, when it closes. Only the method, route, profile and
 * status are logged: never a body, a query or a header (no patient data in logs).
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../logger';
import type { HubMetrics } from '../../metrics';

export function accessLog(logger: Logger, metrics: HubMetrics | null) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.on('close', () => {
      const seconds = (performance.now() - started) / 1000;
      metrics?.observeRequest(req.path, req.method, res.statusCode, seconds, typeof res.locals.errorCode === 'string' ? res.locals.errorCode : null);
      logger.info(
        { request_id: res.locals.requestId, method: req.method, route: req.path, profile: res.locals.profile, status: res.statusCode, duration_ms: Math.round(performance.now() - started), aborted: !res.writableFinished },
        'request',
      );
    });
    next();
  };
}
