/**
 * An in-process OTLP/HTTP collector for tests: `POST /v1/traces` with an OTLP JSON body (what
 * @opentelemetry/exporter-trace-otlp-http sends), decoded into flat spans. Every byte received is kept, so a
 * test can scan the whole export for text that must never leave the hub. `hang` holds exports unanswered
 * (a collector that accepts connections and never replies).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

function decodeValue(v: AnyValue): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function decodeAttributes(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, decodeValue(a.value)]));
}

export class OtlpReceiver {
  /** Every request body as received, in order. */
  readonly bodies: Buffer[] = [];
  readonly headers: Array<IncomingMessage['headers']> = [];
  /** Exports received and not answered yet (with `hang`). */
  pending = 0;
  private hang = false;
  private held: ServerResponse[] = [];
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  private url = '';

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  get baseUrl(): string {
    return this.url;
  }

  /** Hold every export from now on unanswered (true), or answer them again (false; held ones get their 200). */
  setHang(hang: boolean): void {
    this.hang = hang;
    if (!hang) for (const res of this.held.splice(0)) this.answer(res);
  }

  private answer(res: ServerResponse): void {
    this.pending--;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    this.bodies.push(Buffer.concat(chunks));
    this.headers.push(req.headers);
    this.pending++;
    if (this.hang) this.held.push(res);
    else this.answer(res);
  }

  /** Every byte received, as one UTF-8 string (for scans). */
  allText(): string {
    return Buffer.concat(this.bodies).toString('utf8');
  }

  /** Every span received so far, decoded. */
  spans(): ReceivedSpan[] {
    const out: ReceivedSpan[] = [];
    for (const body of this.bodies) {
      const doc = JSON.parse(body.toString('utf8')) as { resourceSpans?: any[] };
      for (const rs of doc.resourceSpans ?? []) {
        const resource = decodeAttributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            out.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: decodeAttributes(s.attributes),
              status: s.status ?? { code: 0 },
              resource,
              startTimeUnixNano: String(s.startTimeUnixNano),
              endTimeUnixNano: String(s.endTimeUnixNano),
            });
          }
        }
      }
    }
    return out;
  }

  async stop(): Promise<void> {
    this.setHang(false);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
