/** Maps every failure to the wire once (decision 1): `{error: {message,type,param,code}, detail: {code,message,...}}`. */
import type { Response } from 'express';
import { HubError } from '../errors';

export interface WireError {
  status: number;
  headers: Record<string, string>;
  body: { error: { message: string; type: string; param: string | null; code: string }; detail: Record<string, unknown> };
}

export function toWireError(err: unknown): WireError {
  const e = err instanceof HubError ? err : new HubError('internal_error', 'The hub failed to handle this request.');
  return {
    status: e.status,
    headers: e.headers,
    body: {
      error: { message: e.message, type: e.type, param: e.param, code: e.code },
      detail: { code: e.detailCode, message: e.message, ...e.extra },
    },
  };
}

export function sendError(res: Response, err: unknown): void {
  const wire = toWireError(err);
  // Read by the access log for the errors-by-code metric: the hub's own code, whatever name `detail` uses.
  res.locals.errorCode = wire.body.error.code;
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [k, v] of Object.entries(wire.headers)) res.setHeader(k, v);
  res.status(wire.status).json(wire.body);
}
