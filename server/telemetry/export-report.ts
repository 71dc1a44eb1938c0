/**
 * What the operator hears of span export, in the hub's own log: one warning when exports start failing (a
 * collector unreachable, refusing, slow) and one line when they work again, never one per batch; one
 * warning per kind of SDK complaint (spans dropped from a full queue …). Export runs in the background, so
 * a failing collector costs turns nothing but the spans it loses.
 */
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { ExportResultCode, setGlobalErrorHandler, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger';

/** Forwards every call to `inner`; logs the first failure of an outage and the recovery after it. */
export class ReportingExporter implements SpanExporter {
  private failing = false;
  private lostSpans = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
    /** The collector's URL reduced to scheme://host[:port]/path (never credentials). */
    private readonly where: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        if (this.failing) this.logger.info({ collector: this.where, lost_spans: this.lostSpans }, 'OpenTelemetry span export works again');
        this.failing = false;
        this.lostSpans = 0;
      } else {
        this.lostSpans += spans.length;
        // A code or name only: the message may hold a collector's reply, and one warning covers the outage.
        if (!this.failing) this.logger.warn({ collector: this.where, error: errorKind(result.error) }, 'OpenTelemetry span export failed; spans are dropped until the collector answers');
        this.failing = true;
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function errorKind(err: Error | undefined): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : (err?.name ?? 'unknown');
}

/**
 * Routes the SDK's own warnings and errors (a full queue dropping spans, a bad setting) to the hub's log, each
 * kind once: "Dropped 12 spans" and "Dropped 40 spans" are one kind. Failed exports are ReportingExporter's
 * to report (it knows when an outage ends), so the SDK's handler of them is silenced.
 */
export function reportSdkDiagnostics(logger: Logger): () => void {
  const seen = new Set<string>();
  const once = (level: 'warn' | 'error') => (message: string) => {
    const kind = message.replace(/\d+/g, '#');
    if (seen.has(kind)) return;
    seen.add(kind);
    logger[level]({ source: 'opentelemetry' }, message);
  };
  const quiet = () => undefined;
  const bridge: DiagLogger = { error: once('error'), warn: once('warn'), info: quiet, debug: quiet, verbose: quiet };
  diag.setLogger(bridge, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  setGlobalErrorHandler(() => undefined);
  return () => diag.disable();
}
