/**
 * HTTP client for QueryStore's `GET /ws/rest/v1/querystore/patientrecord` (hub-contract §5.4, clients.md §4):
 * one undici Pool with keep-alive, HTTP Basic with the service account, connect and idle timeouts from undici
 * plus a whole-call deadline (spec: 30 s) that also bounds a multi-page ledger. Bodies are validated by wire.ts.
 * Messages never carry the patient id, the question or record text: the source adds the patient id itself.
 */
import type { Dispatcher } from 'undici';
import { closePool, Pool, transportCode } from '../../../llm';
import { trimEndChars } from '../../../text-scan';
import { LEDGER_PAGE_LIMIT, LedgerAssembly, contractError, parseBody, toLedgerPage, toRankedHits, toSliceRows } from './wire';
import { type LedgerFetchResult, type QuerystoreApi, type QuerystoreRecord, type SliceOptions, QuerystoreError } from './types';

export interface QuerystoreClientOptions {
  /** QueryStore's OpenMRS base URL; a path prefix is kept (`http://h:8080/openmrs` → `/openmrs/ws/rest/v1/…`). */
  baseUrl: string;
  username: string;
  password: string;
  connectTimeoutMs: number;
  /** Longest wait for headers or between body chunks; 0 = no limit. */
  idleTimeoutMs: number;
  /** Deadline of a whole call (every page of a ledger); 0 = no limit. */
  requestTimeoutMs: number;
  /** Cap on one response body; default 32 MiB. */
  maxResponseBytes?: number;
}

const RECORD_PATH = '/ws/rest/v1/querystore/patientrecord';
const RANKED_LIMIT = 20;
const SLICE_LIMIT = 500;
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const CLOSE_GRACE_MS = 2000;
const IDLE_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

type ResponseBody = Dispatcher.ResponseData['body'];
interface Answer { status: number; headers: Dispatcher.ResponseData['headers']; body: ResponseBody }

export function createQuerystoreClient(opts: QuerystoreClientOptions): QuerystoreApi {
  return new HttpQuerystoreClient(opts);
}

/** The caller's signal joined with the whole-call deadline; `fail` tells the two (and transport errors) apart. */
class CallScope {
  readonly signal: AbortSignal;
  private readonly deadline = new AbortController();
  private readonly timer: NodeJS.Timeout | null;

  constructor(private readonly caller: AbortSignal | undefined, private readonly timeoutMs: number, private readonly where: string) {
    if (caller?.aborted) throw cancelled();
    this.timer = timeoutMs > 0 ? setTimeout(() => this.deadline.abort(), timeoutMs) : null;
    this.signal = caller ? AbortSignal.any([caller, this.deadline.signal]) : this.deadline.signal;
  }

  fail(err: unknown): QuerystoreError {
    if (this.caller?.aborted) return cancelled();
    if (this.deadline.signal.aborted) return new QuerystoreError('transport', `QueryStore at ${this.where} did not answer within ${this.timeoutMs} ms.`);
    if (err instanceof QuerystoreError) return err;
    const code = transportCode(err) ?? 'transport error';
    if (IDLE_TIMEOUT_CODES.has(code)) return new QuerystoreError('transport', `QueryStore at ${this.where} went silent for longer than the idle timeout (${code}).`);
    return new QuerystoreError('transport', `Cannot reach QueryStore at ${this.where} (${code}).`);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

function cancelled(): QuerystoreError {
  return new QuerystoreError('aborted', 'The QueryStore request was cancelled.');
}

class HttpQuerystoreClient implements QuerystoreApi {
  readonly identity: string;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly where: string;
  private readonly headers: Record<string, string>;
  private readonly maxBytes: number;
  private readonly requestTimeoutMs: number;

  constructor(private readonly opts: QuerystoreClientOptions) {
    const url = new URL(opts.baseUrl);
    const prefix = trimEndChars(url.pathname, '/'); // not `/\/+$/`: quadratic on a run of slashes
    this.path = prefix + RECORD_PATH;
    this.where = url.origin + prefix; // an origin never carries userinfo
    this.identity = `${url.origin}${prefix}|${opts.username}`;
    this.headers = {
      accept: 'application/json',
      authorization: `Basic ${Buffer.from(`${opts.username}:${opts.password}`, 'utf8').toString('base64')}`,
    };
    this.maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.requestTimeoutMs = opts.requestTimeoutMs;
    this.pool = new Pool(url.origin, {
      connectTimeout: opts.connectTimeoutMs,
      headersTimeout: opts.idleTimeoutMs,
      bodyTimeout: opts.idleTimeoutMs,
    });
  }

  async fetchLedger(patient: string, opts: { etag?: string; signal?: AbortSignal } = {}): Promise<LedgerFetchResult> {
    return this.withScope(opts.signal, async (scope) => {
      const assembly = new LedgerAssembly();
      let pageNumber = 0;
      do {
        pageNumber++;
        const startIndex = assembly.nextStartIndex;
        const first = pageNumber === 1;
        const validator = first && opts.etag ? opts.etag : undefined;
        const query = { patient, limit: String(LEDGER_PAGE_LIMIT), startIndex: String(startIndex) };
        const res = await this.get(query, scope, validator);
        if (res.status === 304) {
          await discard(res.body);
          if (!validator) {
            const why = first ? 'HTTP 304 to a request without If-None-Match' : 'HTTP 304 on a later page (only the first page revalidates)';
            throw contractError(`ledger page ${pageNumber}`, why);
          }
          return { kind: 'not_modified' };
        }
        await this.ensureOk(res);
        const { text, bytes } = await this.readBody(res.body, `ledger page ${pageNumber}`);
        const etag = first ? headerValue(res.headers.etag) : null;
        assembly.add(toLedgerPage(parseBody(text, `ledger page ${pageNumber}`), etag, pageNumber), bytes);
      } while (!assembly.complete);
      return { kind: 'ledger', ledger: assembly.finish() };
    });
  }

  async rankedSearch(patient: string, question: string, opts: { signal?: AbortSignal } = {}): Promise<QuerystoreRecord[]> {
    return this.withScope(opts.signal, async (scope) => {
      const res = await this.get({ patient, q: question, limit: String(RANKED_LIMIT) }, scope);
      return toRankedHits(await this.okJson(res, 'ranked search'));
    });
  }

  async contextSlice(patient: string, opts: SliceOptions & { signal?: AbortSignal }): Promise<QuerystoreRecord[]> {
    return this.withScope(opts.signal, async (scope) => {
      const query: Record<string, string> = {
        patient, mode: 'context', q: opts.question, temporal: String(opts.temporal), limit: String(SLICE_LIMIT), interpret: 'true',
      };
      const types = [...new Set(opts.types ?? [])].sort();
      if (types.length > 0) query.types = types.join(',');
      const res = await this.get(query, scope);
      return toSliceRows(await this.okJson(res, 'context slice'));
    });
  }

  /** Graceful close; after a short grace, in-flight requests are cut (shutdown must not wait out a slow QueryStore). */
  async close(): Promise<void> {
    await closePool(this.pool, CLOSE_GRACE_MS);
  }

  // ---- HTTP --------------------------------------------------------------------------------

  /** Runs one API call under a fresh scope; every failure leaves as a QuerystoreError. */
  private async withScope<T>(signal: AbortSignal | undefined, call: (scope: CallScope) => Promise<T>): Promise<T> {
    const scope = new CallScope(signal, this.requestTimeoutMs, this.where);
    try {
      return await call(scope);
    } catch (err) {
      throw scope.fail(err);
    } finally {
      scope.dispose();
    }
  }

  private async get(query: Record<string, string>, scope: CallScope, ifNoneMatch?: string): Promise<Answer> {
    const headers = ifNoneMatch ? { ...this.headers, 'if-none-match': ifNoneMatch } : this.headers;
    const res = await this.pool.request({
      method: 'GET',
      path: `${this.path}?${new URLSearchParams(query).toString()}`,
      headers,
      signal: scope.signal,
    });
    // Readers see body errors through their iterator; this keeps a destroyed, unread body from crashing the process.
    res.body.on('error', () => undefined);
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }

  private async okJson(res: Answer, where: string): Promise<Record<string, unknown>> {
    if (res.status === 304) {
      await discard(res.body);
      throw contractError(where, 'HTTP 304 to a request without If-None-Match');
    }
    await this.ensureOk(res);
    return parseBody((await this.readBody(res.body, where)).text, where);
  }

  /** Non-2xx ⇒ `http` error. QueryStore's error bodies are not quoted: they may echo the patient or the question. */
  private async ensureOk(res: Answer): Promise<void> {
    if (res.status >= 200 && res.status < 300) return;
    await discard(res.body);
    throw new QuerystoreError('http', httpMessage(res.status, this.opts.username, this.where), res.status);
  }

  /** Buffers a body up to the byte cap (a runaway QueryStore must not exhaust memory). */
  private async readBody(body: ResponseBody, where: string): Promise<{ text: string; bytes: number }> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of body) {
      bytes += (chunk as Buffer).length;
      if (bytes > this.maxBytes) {
        body.destroy();
        throw contractError(where, `the body exceeds the ${this.maxBytes}-byte cap`);
      }
      chunks.push(chunk as Buffer);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), bytes };
  }
}

function httpMessage(status: number, username: string, where: string): string {
  if (status === 401 || status === 403) {
    return `QueryStore refused the service account '${username}' (HTTP ${status}): check its password and that its role grants the 'Get Patients' privilege.`;
  }
  if (status === 404) return `The patient is unknown to QueryStore (HTTP 404), or QueryStore is not served under ${where}.`;
  if (status >= 500) return `QueryStore failed (HTTP ${status}).`;
  return `QueryStore rejected the request (HTTP ${status}).`;
}

function headerValue(v: string | string[] | undefined): string | null {
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

/** Drains an unused body so its socket returns to the pool (undici destroys it past a small limit). */
async function discard(body: ResponseBody): Promise<void> {
  await body.dump().catch(() => undefined);
}
