/**
 * The one door of the Catalyst endpoint family (hub-contract §2.5, §10): discovery, role generate and
 * warm, and the raw single-model generate. `app.ts` mounts the router this returns.
 */
import express from 'express';
import type { LocalTokenizer, RouterClient } from '../llm';
import type { Catalog } from '../profiles';
import type { TraceSink } from '../trace';
import type { Telemetry } from '../telemetry';
import { discoveryHandler } from './discovery';
import { rawGenerateHandler } from './raw-generate';
import { roleHandler } from './role-call';

export { CATALYST_WIRE_SCHEMAS } from './request-schemas';
export { catalystOpenApiPaths } from './openapi-paths';

export interface CatalystDeps {
  catalog: Catalog;
  router: RouterClient;
  localTokenizer: LocalTokenizer | null;
  trace: TraceSink;
  /** `providerId` of profile evidence (LLM_PROVIDER). */
  providerId: string;
  /** Bound on every model-inventory read (ROUTER_DISCOVERY_TIMEOUT_SECONDS). */
  discoveryTimeoutMs: number;
  /** Ceiling of an X-Request-Timeout-Seconds deadline (CATALYST_MAX_REQUEST_TIMEOUT_SECONDS). */
  maxTimeoutSeconds: number;
  shutdown?: AbortSignal;
  /** The hub's running-work counter (graceful shutdown drains it). */
  turns: { active: number; started: number };
  /** OpenTelemetry: one `chat {model}` span per role or raw call (absent: off). */
  telemetry?: Telemetry;
}

export const QUERY_PROFILES_PATH = '/v1/hub/query-profiles';
export const RAW_GENERATE_PATH = '/v1/hub/generate';
/** Every Catalyst path lies under this prefix: the hub enters the Catalyst router for these only. */
export const CATALYST_PATH_PREFIX = '/v1/hub/';

export function catalystRouter(deps: CatalystDeps): express.Router {
  const router = express.Router();
  router.get(QUERY_PROFILES_PATH, discoveryHandler(deps));
  router.post(`${QUERY_PROFILES_PATH}/:profile/roles/:role/generate`, roleHandler(deps, 'generate'));
  router.post(`${QUERY_PROFILES_PATH}/:profile/roles/:role/warm`, roleHandler(deps, 'warm'));
  router.post(RAW_GENERATE_PATH, rawGenerateHandler(deps));
  return router;
}
