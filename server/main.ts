/** Process entry: config → catalogue → router client → app → listen → graceful shutdown. */
import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import { createApp } from './app';
import { loadConfigOrExit, needsEmbeddedEngine, type Config } from './config';
import { createLogger, type DestinationStream } from './logger';
import { createModelBackend, loadLocalTokenizer, createFitBounds } from './llm';
import { loadCatalog, ProfileConfigError, requiredModels } from './profiles';
import { SourceRegistry, inlineSource, createQuerystore } from './context';
import { createDrugSafety } from './checks/drug-safety';
import { TraceWriter } from './trace';
import { createMetrics } from './metrics';
import { createKnowledgeBaseSource, openHubKnowledge, type HubKnowledge } from './knowledge';
import { createTelemetry, type Telemetry } from './telemetry';

export interface RunningHub {
  server: Server;
  url: string;
  trace: TraceWriter;
  traceDir: string;
  /** OpenTelemetry (a no-op when no OTLP endpoint is set); tests flush it before reading what a collector got. */
  telemetry: Telemetry;
  /** Turns still running (their engine has not finished). */
  activeTurns(): number;
  startedTurns(): number;
  routerSlots(): { inFlight: number; queued: number; capacity: number; maxQueue: number };
  /** The model backend in one line (router URL or embedded engine and its models folder). */
  backend: string;
  /**
   * Graceful stop: no new connections; running turns may finish for `drainMs`; then each is settled
   * with a terminal event (or the Answer it has, or a 503) and closed; the trace is flushed.
   */
  shutdown(drainMs: number): Promise<{ settled: number }>;
  close(): Promise<void>;
}

/** How long settled turns get to write their terminal frame and unwind before connections are cut. */
const SETTLE_LIMIT_MS = 5000;

async function waitFor(done: () => boolean, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

/** Starts a hub from a configuration (used by main and by integration tests). */
export async function startHub(config: Config, opts: { logDestination?: DestinationStream } = {}): Promise<RunningHub> {
  const logger = createLogger(config.logLevel, opts.logDestination);
  const catalog = loadCatalog({ profilesPath: config.profilesPath, promptsDir: config.promptsDir });
  const backend = createModelBackend(config);
  const router = backend.client;
  const localTokenizer = config.tokenizerJson ? loadLocalTokenizer(config.tokenizerJson, { models: config.tokenizerModels }) : null;
  // A failed trace write is counted and logged (never with its content); it never fails a turn.
  const trace = new TraceWriter(config.traceDir, (err) => logger.warn({ err: err instanceof Error ? err.message : 'unknown' }, 'trace write failed'), 'trace.jsonl', config.traceFlushMs);
  const turns = { active: 0, started: 0 };
  // Off unless an OTLP endpoint is set; then spans leave in the background and shutdown exports the last of them.
  const telemetry = createTelemetry(config.telemetry, { logger, serviceVersion: config.buildRevision === 'unknown' ? null : config.buildRevision });
  const mapped = backend.status().backends ? () => (backend.status().backends ?? []).map((b) => ({ name: b.name, inFlight: b.in_flight, queued: b.queued, healthy: b.health !== 'unhealthy' && b.health !== 'probing' })) : undefined;
  const metrics = createMetrics({ profileIds: catalog.profiles.map((p) => p.id), slots: () => router.slotState(), backends: mapped });
  // QueryStore registers only when configured (never a start-up dependency: nothing is fetched here).
  const querystore = config.querystore ? createQuerystore(config.querystore, { metrics }) : null;
  const stopping = new AbortController();
  // Every running turn listens for the end of the drain period (and removes its listener when done).
  setMaxListeners(Infinity, stopping.signal);
  const fitBounds = config.fitProof === 'byte_bound' ? createFitBounds(router) : null;
  // Loaded once; a missing or malformed source is reported here and treated as absent, never fatal.
  const drugSafety = createDrugSafety(config.drugSafety);
  for (const issue of drugSafety.loadIssues) logger.warn({ issue: issue.id, reason: issue.reason }, 'drug-safety source');
  if (drugSafety.package) {
    const p = drugSafety.package;
    logger.info({ package: p.id, version: p.version, review_state: p.review_state, entries: p.entries, dropped: p.issues.length }, 'drug-safety package loaded');
  }
  // The knowledge routes are always mounted (decision 30); the engine opens only where they can serve a
  // caller or the in-process knowledge-base source reads it (server/knowledge/index.ts says when).
  let knowledge: HubKnowledge;
  try {
    knowledge = await openHubKnowledge(config.knowledge, { logger, maxBodyBytes: config.maxBodyBytes, router, engineForSource: needsEmbeddedEngine(config.knowledgeSource) });
  } catch (err) {
    await router.close();
    await querystore?.close();
    await trace.close();
    await telemetry.shutdown();
    throw err;
  }
  // Always registered, so profiles that declare it never fail for its sake: off or failing, it adds nothing.
  const knowledgeSource = createKnowledgeBaseSource(config.knowledgeSource, { engine: knowledge.service?.pipeline ?? null });
  logger.info({ transport: knowledgeSource.transport }, 'knowledge-base context source');
  const sources = new SourceRegistry([inlineSource({ maxChartRecords: config.maxChartRecords }), knowledgeSource.source, ...(querystore ? [querystore.source] : [])]);
  // Every model a profile names: the embedded engine says on `/` where each one it lacks goes.
  const wantedModels = [...new Set(catalog.profiles.flatMap((p) => requiredModels(p)))];
  const app = createApp({ config, catalog, router, backendStatus: () => backend.status(wantedModels), sources, localTokenizer, fitBounds, trace, metrics, turns, logger, shutdown: stopping.signal, purgeQuerystoreCache: querystore ? () => querystore.purgeCache() : null, drugSafety, knowledge, telemetry });
  const server = app.listen(config.port, config.host);
  // No whole-request deadline: clients wait minutes for big models (decision 6).
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    server,
    url: `http://${host}:${port}`,
    trace,
    traceDir: config.traceDir,
    telemetry,
    activeTurns: () => turns.active,
    startedTurns: () => turns.started,
    routerSlots: () => router.slotState(),
    backend: backend.describe(),
    async shutdown(drainMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await waitFor(() => turns.active === 0, drainMs);
      const settled = turns.active;
      if (settled > 0) {
        stopping.abort();
        await waitFor(() => turns.active === 0, SETTLE_LIMIT_MS);
      }
      server.closeAllConnections();
      await closed;
      await router.close();
      await querystore?.close();
      await knowledgeSource.close();
      await knowledge.service?.close();
      await trace.close();
      // After every turn has ended its span: what is still queued is exported now (bounded by OTEL_EXPORTER_OTLP_TIMEOUT).
      await telemetry.shutdown();
      return { settled };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await router.close();
      await querystore?.close();
      await knowledgeSource.close();
      await knowledge.service?.close();
      await trace.close();
      await telemetry.shutdown();
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit('med-agent-hub');
  let hub: RunningHub;
  try {
    hub = await startHub(config);
  } catch (err) {
    if (err instanceof ProfileConfigError) {
      process.stderr.write(`med-agent-hub: profile catalogue error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  process.stdout.write(`med-agent-hub listening on ${hub.url} (${hub.backend})\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`med-agent-hub: ${signal}: draining for up to ${config.drainSeconds} s\n`);
    // Stop accepting; let in-flight requests finish for up to HUB_DRAIN_SECONDS, then settle the rest.
    hub
      .shutdown(config.drainSeconds * 1000)
      .then(({ settled }) => {
        process.stdout.write(`med-agent-hub: stopped (${settled} turn(s) settled at the drain limit)\n`);
        process.exit(0);
      })
      .catch((err: unknown) => {
        process.stderr.write(`med-agent-hub: shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`med-agent-hub: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
