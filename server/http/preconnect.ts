/**
 * Opens the model backend's connection as soon as an authenticated request that will call a model
 * arrives, so the TCP connect runs while the body is read and checked instead of on the first model
 * call's critical path (see llm/warm-connector.ts). Costs nothing when a connection is already open.
 */
import type { NextFunction, Request, Response } from 'express';
import { QUERY_PROFILES_PATH, RAW_GENERATE_PATH } from '../catalyst';
import type { RouterClient } from '../llm';

/** POST routes whose handling calls the model: product turns and the Catalyst role and raw calls. */
export function callsModel(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  return path === '/v1/chat/completions' || path === RAW_GENERATE_PATH || path.startsWith(`${QUERY_PROFILES_PATH}/`);
}

export function preconnectModelBackend(router: RouterClient) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (router.preconnect && callsModel(req.method, req.path)) router.preconnect();
    next();
  };
}
