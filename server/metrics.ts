/**
 * Prometheus metrics (decision 13), served at `GET /metrics`. Every label comes from a closed set
 * (known routes, configured profile ids, stage names, hub error codes), so a hostile client can never
 * grow the series count; no label ever carries patient or message text.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { STAGE_NAMES } from './profiles';

const ROUTES = new Set([
  '/', '/health', '/metrics', '/openapi.json', '/v1/models', '/v1/chat/completions', '/admin/querystore/cache/purge',
  '/v1/hub/query-profiles', '/v1/hub/generate', '/v2/context', '/v2/retrieve', '/v2/retrieve/stream', '/v1/answer',
]);
/** Catalyst's role routes carry the profile and role in the path: one label each, so ids never become label values. */
const ROLE_ROUTE = /^\/v1\/hub\/query-profiles\/[^/]+\/roles\/[^/]+\/(generate|warm)$/;

/** The `route` label of a request path: a known route, a role-route template, or `other`. */
export function routeLabel(path: string): string {
  if (ROUTES.has(path)) return path;
  const role = ROLE_ROUTE.exec(path);
  return role ? `/v1/hub/query-profiles/{profile}/roles/{role}/${role[1]}` : 'other';
}
const STAGES = new Set<string>(STAGE_NAMES);
/** Error codes look like `router_busy`; anything else is folded into `other`. */
const CODE_RE = /^[a-z][a-z0-9_]{0,48}$/;
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export interface SlotGauges {
  inFlight: number;
  queued: number;
}

/** One backend of the LLM_BACKENDS map at a scrape (names come from the file: a closed set). */
export interface BackendGauges extends SlotGauges {
  name: string;
  healthy: boolean;
}

export interface TurnObservation {
  profile: string;
  /** Seconds from the start of the turn to `answer_done`, when the turn reached it. */
  answerDoneSeconds: number | null;
  stages: ReadonlyArray<{ stage: string; seconds: number; status: string }>;
  /** The turn's failure code, when it failed. */
  errorCode: string | null;
}

export interface HubMetrics {
  readonly registry: Registry;
  observeRequest(route: string, method: string, status: number, seconds: number, errorCode: string | null): void;
  observeTurn(turn: TurnObservation): void;
  observeModelCall(call: { queueWaitSeconds: number; promptTokens: number; completionTokens: number }): void;
  /** One QueryStore ledger lookup: how the patient ledger cache answered, and the ranked search and slice outcomes. */
  observeQuerystore(o: QuerystoreObservation): void;
  /** Entries and bytes of the patient ledger cache, read at each scrape (counts only, never keys). */
  watchQuerystoreCache(read: () => { entries: number; bytes: number }): void;
}

export interface QuerystoreObservation {
  cache: 'miss' | 'not_modified' | 'refreshed' | 'failed';
  seconds: number;
  ranked: 'ok' | 'failed' | 'skipped';
  slice: 'ok' | 'failed' | 'skipped';
}

const QS_CACHE = new Set(['miss', 'not_modified', 'refreshed', 'failed']);
const QS_PART = new Set(['ok', 'failed', 'skipped']);

export function createMetrics(opts: { profileIds: readonly string[]; slots: () => SlotGauges; backends?: () => readonly BackendGauges[] }): HubMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'hub_' });
  const profiles = new Set(opts.profileIds);
  const profileLabel = (id: string) => (profiles.has(id) ? id : 'leg');
  const codeLabel = (code: string) => (CODE_RE.test(code) ? code : 'other');

  const requestDuration = new Histogram({ name: 'hub_request_duration_seconds', help: 'HTTP request duration, by route, method and status.', labelNames: ['route', 'method', 'status'], buckets: SECONDS_BUCKETS, registers: [registry] });
  const answerDone = new Histogram({ name: 'hub_answer_done_seconds', help: 'Time from the start of a product turn to its answer_done event.', labelNames: ['profile'], buckets: SECONDS_BUCKETS, registers: [registry] });
  const stageDuration = new Histogram({ name: 'hub_stage_duration_seconds', help: 'Duration of each engine stage (consumer time excluded).', labelNames: ['stage', 'status'], buckets: SECONDS_BUCKETS, registers: [registry] });
  const routerWait = new Histogram({ name: 'hub_router_wait_seconds', help: 'Time a model call waited for a router slot.', buckets: SECONDS_BUCKETS, registers: [registry] });
  const tokens = new Counter({ name: 'hub_tokens_total', help: 'Router tokens, prompt (in) and completion (out).', labelNames: ['direction'], registers: [registry] });
  const errors = new Counter({ name: 'hub_errors_total', help: 'Errors by hub error code (HTTP errors and failed or errored turns).', labelNames: ['code'], registers: [registry] });
  const qsLookups = new Counter({ name: 'hub_querystore_ledger_lookups_total', help: 'QueryStore patient ledger lookups, by how the cache answered (miss, not_modified = 304 revalidation, refreshed, failed).', labelNames: ['cache'], registers: [registry] });
  const qsSeconds = new Histogram({ name: 'hub_querystore_fetch_seconds', help: 'Time to build a QueryStore ledger for a turn (revalidation or acquisition, ranked search and slice).', buckets: SECONDS_BUCKETS, registers: [registry] });
  const qsParts = new Counter({ name: 'hub_querystore_requests_total', help: 'QueryStore ranked searches and context slices, by outcome (failures degrade to the local policy).', labelNames: ['call', 'outcome'], registers: [registry] });
  let qsCache: (() => { entries: number; bytes: number }) | null = null;
  new Gauge({ name: 'hub_querystore_cache_entries', help: 'Patient ledgers held in the QueryStore cache.', registers: [registry], collect() { this.set(qsCache?.().entries ?? 0); } });
  new Gauge({ name: 'hub_querystore_cache_bytes', help: 'Bytes of the patient ledgers held in the QueryStore cache.', registers: [registry], collect() { this.set(qsCache?.().bytes ?? 0); } });
  new Gauge({ name: 'hub_router_queue_depth', help: 'Model calls waiting for a router slot.', registers: [registry], collect() { this.set(opts.slots().queued); } });
  new Gauge({ name: 'hub_router_in_flight', help: 'Model calls holding a router slot.', registers: [registry], collect() { this.set(opts.slots().inFlight); } });
  const backends = opts.backends;
  if (backends) {
    // LLM_BACKENDS only: each backend's own slots and health (hub_router_* above are their sums).
    const each = (name: string, help: string, read: (b: BackendGauges) => number) =>
      new Gauge({ name, help, labelNames: ['backend'], registers: [registry], collect() { for (const b of backends()) this.set({ backend: b.name }, read(b)); } });
    each('hub_backend_in_flight', 'Model calls holding a slot of this backend (LLM_BACKENDS).', (b) => b.inFlight);
    each('hub_backend_queue_depth', 'Model calls waiting for a slot of this backend (LLM_BACKENDS).', (b) => b.queued);
    each('hub_backend_healthy', '1 while the backend is healthy; 0 after a failure that never reached a model, until a call or discovery gets an answer (LLM_BACKENDS).', (b) => (b.healthy ? 1 : 0));
  }

  return {
    registry,
    observeRequest(route, method, status, seconds, errorCode) {
      requestDuration.observe({ route: routeLabel(route), method: ['GET', 'POST', 'OPTIONS'].includes(method) ? method : 'other', status: String(status) }, seconds);
      if (errorCode) errors.inc({ code: codeLabel(errorCode) });
    },
    observeTurn(turn) {
      const profile = profileLabel(turn.profile);
      if (turn.answerDoneSeconds !== null) answerDone.observe({ profile }, turn.answerDoneSeconds);
      for (const s of turn.stages) stageDuration.observe({ stage: STAGES.has(s.stage) ? s.stage : 'other', status: ['completed', 'failed', 'cancelled'].includes(s.status) ? s.status : 'other' }, s.seconds);
      if (turn.errorCode) errors.inc({ code: codeLabel(turn.errorCode) });
    },
    observeModelCall(call) {
      routerWait.observe(call.queueWaitSeconds);
      tokens.inc({ direction: 'in' }, call.promptTokens);
      tokens.inc({ direction: 'out' }, call.completionTokens);
    },
    observeQuerystore(o) {
      qsLookups.inc({ cache: QS_CACHE.has(o.cache) ? o.cache : 'other' });
      qsSeconds.observe(o.seconds);
      qsParts.inc({ call: 'ranked', outcome: QS_PART.has(o.ranked) ? o.ranked : 'other' });
      qsParts.inc({ call: 'slice', outcome: QS_PART.has(o.slice) ? o.slice : 'other' });
    },
    watchQuerystoreCache(read) {
      qsCache = read;
    },
  };
}
