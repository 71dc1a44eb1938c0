/**
 * Enters a sub-router only for the paths it serves. Mounted at `/`, an Express router is entered by every
 * request, which walks its route layers and restores its URL state on the way out: work a chat request
 * (the hub's hot path) does for each sub-router mounted before it. Express routes match case-insensitively
 * with an optional trailing slash, so the gate compares the same way and never hides a route.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** The request path as Express's default (non-strict, case-insensitive) routing compares it. */
export function routingPath(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/** `handler` for a path in `paths` or under one of `prefixes` (each ending in '/'); otherwise straight on. */
export function pathGate(handler: RequestHandler, opts: { paths?: readonly string[]; prefixes?: readonly string[] }): RequestHandler {
  const paths = new Set((opts.paths ?? []).map(routingPath));
  const prefixes = (opts.prefixes ?? []).map((p) => p.toLowerCase());
  return (req: Request, res: Response, next: NextFunction) => {
    const p = routingPath(req.path);
    if (paths.has(p) || prefixes.some((prefix) => p.startsWith(prefix))) return handler(req, res, next);
    next();
  };
}
