/** Every response carries `x-request-id`: the caller's when it is a plain short token, else a fresh UUID. */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.header('x-request-id');
  const id = given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('x-request-id', id);
  next();
}
