/** Open CORS (any origin, method and header); a preflight OPTIONS is answered 204 here. */
import type { NextFunction, Request, Response } from 'express';

export function cors(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', '*');
  res.setHeader('Access-Control-Allow-Headers', '*');
  if (_req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}
