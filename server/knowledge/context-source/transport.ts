/**
 * The two ways the knowledge-base source reaches `/v2/context` (knowledge-layer.md §6.1, §6.4), behind one
 * interface: in process (the hub's own knowledge pipeline over its embedded store, no HTTP round trip) or
 * over HTTP to a Locus-compatible service (`POST {LOCUS_BASE_URL}/v2/context`, bearer lsk_ key, one pooled
 * undici connection set, a whole-call deadline joined with the turn's abort signal). Both give the same
 * `ContextResponse`; the in-process one also gives each MKU's document licence, which the wire omits.
 */
import { compileKnowledgeSchema } from '../http/validate';
import { runContext } from '../pipeline/context';
import type { ContextRequest, ContextResponse, PipelineDeps } from '../pipeline/types';
import { closePool, Pool } from '../../llm';

export interface ContextCall {
  response: ContextResponse;
  /** MKU id → licence of its document, where the transport knows it. */
  licenses: ReadonlyMap<string, string>;
}

export interface KnowledgeTransport {
  readonly kind: 'in_process' | 'http';
  context(req: ContextRequest, signal?: AbortSignal): Promise<ContextCall>;
  close(): Promise<void>;
}

export type FailureKind = 'timeout' | 'http' | 'transport' | 'contract' | 'store' | 'aborted';

/** A failed call; `kind` goes to the trace (never the key, the query or the patient). */
export class KnowledgeCallError extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly status: number | null = null) {
    super(message);
    this.name = 'KnowledgeCallError';
  }
}

export function inProcessTransport(pipeline: PipelineDeps): KnowledgeTransport {
  return {
    kind: 'in_process',
    async context(req, signal) {
      try {
        // One run view for the lookup and the licences: the licence join is the enrichment join again.
        const store = pipeline.store.forRun?.() ?? pipeline.store;
        const response = await runContext({ ...pipeline, store }, req, undefined, signal);
        const ids = response.mkus.map((m) => m.id);
        const provenance = ids.length ? await store.provenance(ids) : new Map();
        const licenses = new Map<string, string>();
        for (const [id, p] of provenance) if (typeof p.license === 'string' && p.license.trim() !== '') licenses.set(id, p.license);
        return { response, licenses };
      } catch (err) {
        if (signal?.aborted) throw new KnowledgeCallError('aborted', 'The turn was cancelled during the knowledge lookup.');
        throw new KnowledgeCallError('store', `The knowledge engine failed (${err instanceof Error ? err.name : 'unknown'}).`);
      }
    },
    async close() {},
  };
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function httpTransport(opts: { baseUrl: string; apiKey: string; timeoutMs: number }): KnowledgeTransport {
  const url = new URL(opts.baseUrl);
  const path = `${url.pathname.replace(/\/$/, '')}/v2/context`;
  const pool = new Pool(url.origin, { connections: 4, connectTimeout: opts.timeoutMs, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
  const validate = compileKnowledgeSchema<ContextResponse>('MkuContextResponse');
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (opts.apiKey !== '') headers.authorization = `Bearer ${opts.apiKey}`;
  return {
    kind: 'http',
    async context(req, signal) {
      const deadline = AbortSignal.timeout(opts.timeoutMs);
      const joined = signal ? AbortSignal.any([signal, deadline]) : deadline;
      try {
        const res = await pool.request({ method: 'POST', path, headers, body: JSON.stringify(req), signal: joined });
        res.body.on('error', () => undefined);
        if (res.statusCode < 200 || res.statusCode >= 300) {
          await res.body.dump().catch(() => undefined);
          // The error body is not quoted: a service may echo the query or the patient.
          throw new KnowledgeCallError('http', `The knowledge service answered HTTP ${res.statusCode}.`, res.statusCode);
        }
        const chunks: Buffer[] = [];
        let bytes = 0;
        for await (const chunk of res.body) {
          bytes += (chunk as Buffer).length;
          if (bytes > MAX_BODY_BYTES) {
            res.body.destroy();
            throw new KnowledgeCallError('contract', `The knowledge service's reply exceeds ${MAX_BODY_BYTES} bytes.`);
          }
          chunks.push(chunk as Buffer);
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          throw new KnowledgeCallError('contract', 'The knowledge service\'s reply is not JSON.');
        }
        if (!validate(parsed)) throw new KnowledgeCallError('contract', 'The knowledge service\'s reply is not an MkuContextResponse.');
        return { response: parsed, licenses: wireLicenses(parsed) };
      } catch (err) {
        if (err instanceof KnowledgeCallError) throw err;
        if (signal?.aborted) throw new KnowledgeCallError('aborted', 'The turn was cancelled during the knowledge lookup.');
        if (deadline.aborted) throw new KnowledgeCallError('timeout', `The knowledge service did not answer within ${opts.timeoutMs} ms.`);
        throw new KnowledgeCallError('transport', `The knowledge service could not be reached (${(err as { code?: string })?.code ?? (err instanceof Error ? err.name : 'unknown')}).`);
      }
    },
    close: () => closePool(pool, 1000),
  };
}

/** A deployment whose provenance carries `license` (an extension of the Locus wire) gets it on its references. */
function wireLicenses(res: ContextResponse): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of res.mkus) {
    const license = (m.provenance as Record<string, unknown> | undefined)?.license;
    if (typeof license === 'string' && license.trim() !== '') out.set(m.id, license);
  }
  return out;
}
