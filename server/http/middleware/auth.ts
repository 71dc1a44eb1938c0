/**
 * Optional API keys (decision 12): `HUB_API_KEYS` holds SHA-256 digests; when set, every route but
 * `/health` needs `Authorization: Bearer <key>`. Digests are compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { HubError } from '../../errors';
import { sendError } from '../../wire';

export function apiKeyAuth(hashes: readonly string[]) {
  const expected = hashes.map((h) => Buffer.from(h, 'hex'));
  return (req: Request, res: Response, next: NextFunction): void => {
    if (expected.length === 0 || req.path === '/health' || req.method === 'OPTIONS') return next();
    const header = req.header('authorization') ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return sendError(res, new HubError('authentication_required', 'This hub requires an API key: send Authorization: Bearer <key>.'));
    }
    const given = createHash('sha256').update(m[1], 'utf8').digest();
    // Compare against every digest so timing does not reveal which (if any) matched.
    let ok = false;
    for (const e of expected) ok = timingSafeEqual(given, e) || ok;
    if (!ok) return sendError(res, new HubError('invalid_api_key', 'The API key is not valid for this hub.'));
    next();
  };
}
