/**
 * Telemetry on: the OpenTelemetry SDK, loaded (by index.ts) only when an OTLP endpoint is configured.
 *
 * Spans are parented explicitly — a turn span holds the stage running now, a model call is that stage's
 * child — so no context manager, no global tracer provider and no async hooks are installed. Every setting
 * is passed to the SDK's constructors from the hub's one settings table: `@opentelemetry/sdk-trace` is used
 * rather than `sdk-trace-base`, whose shims read OTEL_* sampler, limit and batch variables from the
 * environment. The OTLP exporter still reads OTEL_EXPORTER_OTLP_* itself as fallbacks for what it is not
 * given (signal-specific headers, compression); the URL, headers, timeout and connection agent given here win.
 */
import http from 'node:http';
import https from 'node:https';
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { TelemetryConfig } from '../config';
import type { Logger } from '../logger';
import { reduceUrl } from '../sanitize';
import { ReportingExporter, reportSdkDiagnostics } from './export-report';
import * as A from './semconv';
import type { CallSpanStart, IncomingTraceContext, ModelCallSpan, ModelRequestFacts, ModelResultFacts, SpanOutcome, StageSpan, Telemetry, TurnSpan, TurnSpanEnd, TurnSpanStart } from './types';

/** The batch processor's bounds: spans wait at most this many (beyond, they are dropped with one warning). */
const MAX_QUEUE = 2048;
const MAX_BATCH = 512;
// OpenTelemetry's default: a batch leaves at most 5 s after its first span ended (or once 512 wait); shutdown sends the rest.
const EXPORT_DELAY_MS = 5000;

const propagator = new W3CTraceContextPropagator();

/**
 * The exporter's connections: kept alive, made with the modules the hub already has. The exporter's default
 * factory loads them with a dynamic import(), which jest's module sandbox refuses; given a factory, it also
 * leaves the OTEL_EXPORTER_OTLP_*CERTIFICATE* files unread (Node's CAs, NODE_EXTRA_CA_CERTS, apply).
 */
function exportAgent(protocol: string): http.Agent {
  return protocol === 'http:' ? new http.Agent({ keepAlive: true }) : new https.Agent({ keepAlive: true });
}

/** The client's trace context, when its request carried a valid `traceparent`; else a new trace. */
function parentContext(incoming: IncomingTraceContext): Context {
  if (incoming.traceparent === undefined) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent: incoming.traceparent, tracestate: incoming.tracestate }, defaultTextMapGetter);
}

function fail(span: Span, errorType: string): void {
  // The status message is the error code too: an exception's message may quote a chart or a model's output.
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}

function requestAttributes(request: ModelRequestFacts): Attributes {
  const attributes: Attributes = {
    [A.ATTR_GEN_AI_OPERATION_NAME]: A.GEN_AI_OPERATION_NAME_VALUE_CHAT,
    [A.ATTR_GEN_AI_PROVIDER_NAME]: A.GEN_AI_PROVIDER_NAME_LLAMA_CPP,
    [A.ATTR_GEN_AI_REQUEST_MODEL]: request.model,
  };
  if (typeof request.max_tokens === 'number') attributes[A.ATTR_GEN_AI_REQUEST_MAX_TOKENS] = request.max_tokens;
  if (typeof request.temperature === 'number') attributes[A.ATTR_GEN_AI_REQUEST_TEMPERATURE] = request.temperature;
  if (typeof request.top_p === 'number') attributes[A.ATTR_GEN_AI_REQUEST_TOP_P] = request.top_p;
  if (typeof request.top_k === 'number') attributes[A.ATTR_GEN_AI_REQUEST_TOP_K] = request.top_k;
  return attributes;
}

/** A `chat {model}` span; the first of end/fail counts. */
class OtelModelCall implements ModelCallSpan {
  private open = true;

  constructor(private readonly span: Span, private readonly onClose: (call: OtelModelCall) => void = () => undefined) {}

  end(result?: ModelResultFacts): void {
    if (!this.close()) return;
    const s = this.span;
    if (!result) {
      s.end();
      return;
    }
    if (result.model) s.setAttribute(A.ATTR_GEN_AI_RESPONSE_MODEL, result.model);
    s.setAttribute(A.ATTR_GEN_AI_USAGE_INPUT_TOKENS, result.usage.prompt_tokens);
    s.setAttribute(A.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, result.usage.completion_tokens);
    if (typeof result.usage.cached_tokens === 'number') s.setAttribute(A.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, result.usage.cached_tokens);
    if (result.finishReason) s.setAttribute(A.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [result.finishReason]);
    s.setAttribute(A.ATTR_HUB_QUEUE_WAIT_MS, Math.round(result.queueWaitMs * 1000) / 1000);
    s.end();
  }

  fail(errorType: string): void {
    if (!this.close()) return;
    fail(this.span, errorType);
    this.span.end();
  }

  private close(): boolean {
    if (!this.open) return false;
    this.open = false;
    this.onClose(this);
    return true;
  }
}

class OtelStage implements StageSpan {
  private open = true;

  constructor(readonly span: Span, readonly context: Context, private readonly onEnd: (stage: OtelStage, outcome: SpanOutcome) => void) {}

  end(outcome: SpanOutcome, errorType: string | null = null): void {
    if (!this.open) return;
    this.open = false;
    if (outcome !== 'completed') fail(this.span, errorType ?? outcome);
    this.onEnd(this, outcome);
    this.span.end();
  }
}

/**
 * The turn's root span. It knows the stage running now (stages run one after another), so a model call
 * needs no context passed down; what is still open when the turn ends (an engine that had not unwound yet)
 * is ended with the turn's error type, so no span of a turn is lost.
 */
class OtelTurn implements TurnSpan {
  private readonly context: Context;
  private current: OtelStage | null = null;
  private readonly openCalls = new Set<OtelModelCall>();
  private stoppedAt: string | null = null;
  private stages = 0;
  private calls = 0;
  private ended = false;

  constructor(private readonly tracer: Tracer, private readonly span: Span, parent: Context) {
    this.context = trace.setSpan(parent, span);
  }

  stage(name: string, occurrence: number): StageSpan {
    // The index orders the stages: span start times are stamped to the millisecond, too coarse to tell them apart.
    const attributes = { [A.ATTR_HUB_STAGE_NAME]: name, [A.ATTR_HUB_STAGE_OCCURRENCE]: occurrence, [A.ATTR_HUB_STAGE_INDEX]: this.stages++ };
    const span = this.tracer.startSpan(`stage ${name}`, { kind: SpanKind.INTERNAL, attributes }, this.context);
    const stage = new OtelStage(span, trace.setSpan(this.context, span), (ended, outcome) => {
      if (outcome !== 'completed') this.stoppedAt = name;
      if (this.current === ended) this.current = null;
    });
    this.current = stage;
    return stage;
  }

  modelCall(stage: string, request: ModelRequestFacts): ModelCallSpan {
    this.calls++;
    const attributes = requestAttributes(request);
    attributes[A.ATTR_HUB_CALL_STAGE] = stage;
    const span = this.tracer.startSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes }, this.current?.context ?? this.context);
    const call = new OtelModelCall(span, (closed) => this.openCalls.delete(closed));
    this.openCalls.add(call);
    return call;
  }

  end(end: TurnSpanEnd): void {
    if (this.ended) return;
    this.ended = true;
    const leftOver = end.errorType ?? 'turn_ended';
    for (const call of [...this.openCalls]) call.fail(leftOver);
    this.current?.end(end.outcome === 'completed' ? 'failed' : end.outcome, leftOver);
    const s = this.span;
    s.setAttribute(A.ATTR_HUB_OUTCOME, end.outcome);
    s.setAttribute(A.ATTR_GEN_AI_USAGE_INPUT_TOKENS, end.usage.prompt_tokens);
    s.setAttribute(A.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, end.usage.completion_tokens);
    s.setAttribute(A.ATTR_HUB_STAGES, this.stages);
    s.setAttribute(A.ATTR_HUB_MODEL_CALLS, this.calls);
    if (this.stoppedAt !== null) s.setAttribute(A.ATTR_HUB_STOPPED_AT, this.stoppedAt);
    // The client got an Answer (a fallback or the one already shown) and the stage that failed says ERROR itself.
    if (end.pipelineError !== null) s.setAttribute(A.ATTR_HUB_PIPELINE_ERROR, end.pipelineError);
    if (end.outcome !== 'completed') fail(s, end.errorType ?? end.outcome);
    s.end();
  }
}

export interface OtelTelemetryDeps {
  logger: Logger;
  /** service.version: the build revision, when known. */
  serviceVersion: string | null;
}

export function createOtelTelemetry(config: TelemetryConfig, deps: OtelTelemetryDeps): Telemetry {
  const stopDiagnostics = reportSdkDiagnostics(deps.logger);
  const otlp = new OTLPTraceExporter({ url: config.tracesUrl, headers: { ...config.headers }, timeoutMillis: config.timeoutMs, concurrencyLimit: 4, httpAgentOptions: exportAgent });
  const exporter = new ReportingExporter(otlp, deps.logger, reduceUrl(config.tracesUrl));
  const processor = new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUE, maxExportBatchSize: MAX_BATCH, scheduledDelayMillis: EXPORT_DELAY_MS, exportTimeoutMillis: config.timeoutMs + 1000 });
  // (The processor's own export timeout is the exporter's plus a second, so a failed export is always the exporter's to report.)
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, ...(deps.serviceVersion ? { [ATTR_SERVICE_VERSION]: deps.serviceVersion } : {}) });
  // Parent-based: a client that sent a sampled-out traceparent gets no spans; otherwise every turn is traced.
  const provider = new TracerProvider({ resource, sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), spanProcessors: [processor] });
  const tracer = provider.getTracer('med-agent-hub');
  let stopped: Promise<void> | null = null;

  return {
    enabled: true,
    startTurn(start: TurnSpanStart): TurnSpan {
      const attributes: Attributes = {
        [A.ATTR_GEN_AI_OPERATION_NAME]: A.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [A.ATTR_GEN_AI_PROVIDER_NAME]: A.GEN_AI_PROVIDER_NAME_LLAMA_CPP,
        [A.ATTR_GEN_AI_AGENT_NAME]: start.agentName,
        [A.ATTR_GEN_AI_REQUEST_STREAM]: start.stream,
        [A.ATTR_HUB_TURN_KIND]: start.kind,
        [A.ATTR_HUB_PROFILE_ID]: start.profileId,
        [A.ATTR_HUB_REQUESTED_MODEL]: start.requestedModel,
        [A.ATTR_HUB_REQUEST_ID]: start.requestId,
      };
      if (start.writerModel) attributes[A.ATTR_GEN_AI_REQUEST_MODEL] = start.writerModel;
      const parent = parentContext(start);
      // SERVER: the turn is the hub's handling of the client's request, the entry of its part of the trace.
      const span = tracer.startSpan(`${A.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${start.agentName}`, { kind: SpanKind.SERVER, attributes }, parent);
      return new OtelTurn(tracer, span, parent);
    },
    startCall(start: CallSpanStart, request: ModelRequestFacts): ModelCallSpan {
      const attributes = requestAttributes(request);
      attributes[A.ATTR_GEN_AI_REQUEST_STREAM] = start.stream;
      attributes[A.ATTR_HUB_ROUTE] = start.route;
      attributes[A.ATTR_HUB_REQUEST_ID] = start.requestId;
      if (start.profileId) attributes[A.ATTR_HUB_PROFILE_ID] = start.profileId;
      if (start.role) attributes[A.ATTR_HUB_ROLE] = start.role;
      return new OtelModelCall(tracer.startSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes }, parentContext(start)));
    },
    flush(): Promise<void> {
      return provider.forceFlush().catch(() => undefined);
    },
    shutdown(): Promise<void> {
      // Bounded: an unreachable collector must not hold the hub's exit longer than one export may take.
      stopped ??= new Promise<void>((resolve) => {
        const limit = setTimeout(() => {
          deps.logger.warn({ collector: reduceUrl(config.tracesUrl) }, 'OpenTelemetry: spans still queued at shutdown were not exported in time');
          resolve();
        }, config.timeoutMs + 1000);
        limit.unref();
        provider
          .shutdown()
          .catch(() => undefined)
          .finally(() => {
            clearTimeout(limit);
            resolve();
          });
      }).finally(stopDiagnostics);
      return stopped;
    },
  };
}
