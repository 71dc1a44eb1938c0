/**
 * `POST /v1/chat/completions`: validate → resolve profile or leg → run the engine → blocking
 * envelope or non-staged chunk stream. A client disconnect aborts the turn (and its router call).
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { HubError, isAbortError, ShuttingDownError } from '../errors';
import { drainTurn, runProductTurn, assertRunnable, createTurn, type EngineDeps, type TurnState } from '../engine';
import { flushStagedHeaders, formatSseEvent, streamStagedEvents } from './sse';
import { outcomeOfEvent, turnTrace, type TurnOutcome, type TraceSink } from '../trace';
import { isProductProfile } from '../profiles';
import { sendError, chatCompletion, chunkFrames, completionId } from '../wire';
import { parseChatRequest } from './request-schema';
import { drainUntilShutdown, shuttingDownError, untilShutdown } from './shutdown';
import { NO_TELEMETRY, type Telemetry, type TurnSpanStart } from '../telemetry';

const ENGINE_UNWIND_LIMIT_MS = 5000;

export interface ChatRouteDeps extends EngineDeps {
  trace: TraceSink;
  hubRevision: string;
  /** Turns running right now (shutdown and cancellation tests read it). */
  turns: { active: number; started: number };
  /** Aborted when the drain period of a shutdown is over: running turns are settled and closed. */
  shutdown?: AbortSignal;
  /** OpenTelemetry spans per turn (absent: off). */
  telemetry?: Telemetry;
}

/** The turn's figures for /metrics: time to answer_done, stage durations, and how a stream failed. */
function observeTurn(deps: ChatRouteDeps, turn: TurnState, outcome: TurnOutcome, streamed: boolean): void {
  if (!deps.metrics) return;
  const stages = turn.outcome.stages.map((s) => ({ stage: s.stage, seconds: s.duration_ms / 1000, status: s.status }));
  const pipeline = turn.outcome.pipelineError;
  // A blocking failure is counted once, by its HTTP error; a stream answers 200 and is counted here.
  const streamCode = streamed && outcome.status === 'failed' ? outcome.code ?? 'internal_error' : null;
  deps.metrics.observeTurn({
    profile: turn.profile.lowLevelLeg ? 'leg' : turn.profile.id,
    answerDoneSeconds: turn.accounting.answerDoneAt === null ? null : (turn.accounting.answerDoneAt - turn.startedAt) / 1000,
    stages,
    errorCode: streamCode ?? pipeline,
  });
}

/** The turn's span ends where its trace line is written: when the turn really ended, however it ended. */
function endTurnSpan(turn: TurnState, outcome: TurnOutcome): void {
  const errorType = outcome.status === 'failed' ? outcome.code : outcome.status === 'cancelled' ? 'cancelled' : null;
  turn.telemetry.end({ outcome: outcome.status, errorType, pipelineError: turn.outcome.pipelineError, usage: turn.accounting.usage });
}

/** What the turn's root span says of it at the start (ids and names; the request's text stays out). */
function turnSpanStart(req: Request, body: { model: string; stream?: boolean }, profile: TurnState['profile'], requestId: string): TurnSpanStart {
  const { models } = profile;
  return {
    kind: profile.lowLevelLeg ? 'leg' : 'product',
    // A leg's id holds free settings (a temperature): its kind (`answer`, `answer-review` …) names the span.
    agentName: profile.lowLevelLeg ? profile.id.slice(0, profile.id.indexOf(':')) : profile.id,
    requestedModel: body.model,
    profileId: profile.id,
    writerModel: models.answer ?? models.review ?? models.indepth ?? null,
    requestId,
    stream: body.stream === true,
    traceparent: req.headers.traceparent,
    tracestate: req.headers.tracestate,
  };
}

function outcomeOf(turn: TurnState, err: unknown): TurnOutcome {
  if (err === null) return { status: 'completed' };
  if (turn.signal.aborted || isAbortError(err)) return { status: 'cancelled' };
  return { status: 'failed', code: err instanceof HubError ? err.code : 'internal_error' };
}

/**
 * Staged SSE for product profiles (§3.1): headers are already out; events stream as they come, with
 * heartbeats; the trace line records how the stream ended.
 */
async function streamTraced(turn: TurnState, deps: ChatRouteDeps, res: Response, abortTurn: () => void): Promise<void> {
  let outcome: TurnOutcome = { status: 'cancelled' };
  let engineFinished!: () => void;
  // Resolves once the engine has unwound (its stage timings and slot releases are recorded).
  const finished = new Promise<void>((resolve) => (engineFinished = resolve));
  const engine = runProductTurn(turn, deps, { adapter: 'stream' });
  const events = (async function* () {
    try {
      for await (const event of deps.shutdown ? untilShutdown(engine, turn, deps.shutdown, abortTurn) : engine) {
        outcome = outcomeOfEvent(event) ?? outcome;
        yield event;
      }
    } finally {
      engineFinished();
    }
  })();
  try {
    const ended = await streamStagedEvents(res, events, { heartbeatMs: deps.config.sseHeartbeatSeconds * 1000, signal: turn.signal });
    if (ended === 'client_gone') outcome = { status: 'cancelled' };
    if (turn.outcome.shutdown) outcome = { status: 'failed', code: 'hub_shutting_down' };
  } catch (err) {
    // The producer failed outside the settled paths (a bug): still end with a terminal frame.
    outcome = { status: 'failed', code: err instanceof HubError ? err.code : 'internal_error' };
    if (!res.writableEnded) res.write(formatSseEvent('error', { code: 'internal_error', source: 'hub', message: 'The hub failed while streaming this turn.' }));
    engineFinished();
  } finally {
    if (!res.writableEnded) res.end();
    // A client that left aborted the turn's signal, so the engine stops promptly; never wait forever.
    await Promise.race([finished, new Promise((r) => setTimeout(r, ENGINE_UNWIND_LIMIT_MS).unref())]);
    deps.trace.append(turnTrace(turn, outcome, { hubRevision: deps.hubRevision }));
    observeTurn(deps, turn, outcome, true);
    endTurnSpan(turn, outcome);
  }
}

/**
 * Drains a turn; whatever happens (completed, failed or cancelled) its trace line and metrics are
 * recorded by `settled`, which the caller runs once the response is written: building the trace record
 * is not part of the client's wait.
 */
async function runTraced(turn: TurnState, deps: ChatRouteDeps, abortTurn: () => void, settled: { record: (() => void) | null }): Promise<Record<string, unknown>> {
  let failure: unknown = null;
  try {
    const drain = drainTurn(turn, deps);
    const envelope = await (deps.shutdown ? drainUntilShutdown(drain, turn, deps.shutdown, abortTurn) : drain);
    if (turn.outcome.shutdown) failure = shuttingDownError();
    return envelope;
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    const outcome = failure instanceof ShuttingDownError ? { status: 'failed' as const, code: failure.code } : outcomeOf(turn, failure);
    settled.record = () => {
      deps.trace.append(turnTrace(turn, outcome, { hubRevision: deps.hubRevision }));
      observeTurn(deps, turn, outcome, false);
      endTurnSpan(turn, outcome);
    };
  }
}

/** Hub time vs model time of a blocking response (`hub` excludes router calls and slot waits). */
function serverTiming(started: number, turn: TurnState): string {
  const total = performance.now() - started;
  const { modelMs, queueMs } = turn.accounting.timing;
  const hub = Math.max(0, total - modelMs - queueMs);
  return `hub;dur=${hub.toFixed(3)}, model;dur=${modelMs.toFixed(3)}, queue;dur=${queueMs.toFixed(3)}`;
}

export function chatCompletionsHandler(deps: ChatRouteDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const started = performance.now();
    const abort = new AbortController();
    const settled: { record: (() => void) | null } = { record: null };
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      const body = parseChatRequest(req.body);
      const profile = deps.catalog.resolve(body.model);
      if (body.context?.require_product_profile === true && !isProductProfile(profile)) {
        throw new HubError('product_profile_required', 'This client accepts configured product profiles only.', { extra: { model: body.model } });
      }
      assertRunnable(profile);
      const requestId = String(res.locals.requestId ?? '') || randomUUID();
      // Its span is ended with the trace line (streamTraced, runTraced's `settled`), which every turn that starts writes.
      const span = (deps.telemetry ?? NO_TELEMETRY).startTurn(turnSpanStart(req, body, profile, requestId));
      const turn = createTurn(body, profile, abort.signal, requestId, span);
      res.locals.profile = profile.lowLevelLeg ? 'leg' : profile.id;
      deps.turns.active++;
      deps.turns.started++;
      let envelope: Record<string, unknown>;
      try {
        if (body.stream === true && profile.staged) {
          // Headers before any context work: ChartSearchAI gives up after 30 s without them (decision 2).
          flushStagedHeaders(res);
          await streamTraced(turn, deps, res, () => abort.abort());
          return;
        }
        envelope = await runTraced(turn, deps, () => abort.abort(), settled);
      } finally {
        deps.turns.active--;
      }
      const content = JSON.stringify(envelope);
      if (body.stream === true) {
        res.status(200).setHeader('Content-Type', 'text/event-stream');
        res.setHeader('Cache-Control', 'no-cache');
        const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
        res.end(chunkFrames(body.model, content, includeUsage ? turn.accounting.usage : null, completionId()).join(''));
        return;
      }
      res.setHeader('Server-Timing', serverTiming(started, turn));
      // Written directly: express's res.json adds a second pass over a body of tens of kilobytes.
      res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(chatCompletion(body.model, content, turn.accounting.usage)));
    } catch (err) {
      // A client that left gets nothing more; a turn shutdown interrupted before any Answer gets its 503.
      if (abort.signal.aborted && !(err instanceof ShuttingDownError)) {
        res.end();
        return;
      }
      sendError(res, err);
    } finally {
      settled.record?.();
    }
  };
}
