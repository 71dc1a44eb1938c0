/**
 * QueryStore's wire (clients.md §4, hub-contract §5.4) and the contracts the QueryStore source's parts share:
 * the HTTP client (client.ts), the patient ledger cache (cache.ts), the serializer (serialize.ts) and the
 * resolution of ranked hits and slice rows against the ledger (resolve.ts). The source (source.ts) joins them;
 * index.ts is the one door into the app.
 */
import type { DateKind, SliceTier } from '../../types';

/** One record as QueryStore sends it (never an embedding). */
export interface QuerystoreRecord {
  resourceType: string;
  resourceUuid: string;
  /** Sort date `yyyy-MM-dd` (or null). */
  date: string | null;
  clinicalDate?: string | null;
  dateKind?: DateKind | null;
  text: string;
  metadata: Record<string, unknown>;
  lastModified?: string | null;
  /** 1-based, ranked results only. */
  rank?: number;
  /** Context-slice rows only. */
  tier?: SliceTier;
}

/** A full-chart page as validated by the client. */
export interface LedgerPage {
  results: QuerystoreRecord[];
  totalCount: number;
  snapshotId: string;
  /** First page only (a strong ETag over the complete ordered chart). */
  etag: string | null;
}

/** The complete ledger of one patient, acquired by paging (limit=500) until totalCount. */
export interface AcquiredLedger {
  records: QuerystoreRecord[];
  etag: string;
  snapshotId: string;
  /** HTTP requests the acquisition made (pages). */
  pages: number;
  /** UTF-8 bytes of the page bodies (what the cache charges against its byte bound). */
  bytes: number;
}

/** A full-ledger request's outcome: a new ledger, or the cached one is current (first page answered 304). */
export type LedgerFetchResult = { kind: 'ledger'; ledger: AcquiredLedger } | { kind: 'not_modified' };

/** Why a QueryStore call failed; `QuerystoreError.kind`. */
export type QuerystoreFailureKind =
  /** Non-2xx from QueryStore (status set; 401/403 = the service account; 404 = unknown patient). */
  | 'http'
  /** Connect/reset/timeout: QueryStore unreachable. */
  | 'transport'
  /** A response that breaks the contract (missing fields, duplicate identity, changing total, truncation, missing ETag or snapshotId, 304 on a cold key or a later page, malformed JSON). */
  | 'contract'
  /** Pages disagreed on snapshotId (the chart changed while paging): retried once by the cache, then fatal. */
  | 'inconsistent_snapshot'
  /** The turn was cancelled (its AbortSignal). */
  | 'aborted';

export class QuerystoreError extends Error {
  constructor(
    readonly kind: QuerystoreFailureKind,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'QuerystoreError';
  }
}

export interface SliceOptions {
  /** Raw question (sent with interpret=true: QueryStore interprets it, ADR Decision 18). */
  question: string;
  temporal: boolean;
  /** Resource types, sent sorted and comma-joined as `types`; omitted when empty. */
  types?: readonly string[];
}

/** The HTTP side: one pooled client per deployment, HTTP Basic with the service account. */
export interface QuerystoreApi {
  /** Deployment identity for cache keys: base URL + service principal (never the password). */
  readonly identity: string;
  /** Full ledger; sends If-None-Match on the first page only when `etag` is given. */
  fetchLedger(patient: string, opts: { etag?: string; signal?: AbortSignal }): Promise<LedgerFetchResult>;
  /** Ranked search `q=<question>&limit=20`: unverified candidates. */
  rankedSearch(patient: string, question: string, opts: { signal?: AbortSignal }): Promise<QuerystoreRecord[]>;
  /** The question-scoped context slice (`mode=context`): rows with a tier. */
  contextSlice(patient: string, opts: SliceOptions & { signal?: AbortSignal }): Promise<QuerystoreRecord[]>;
  close(): Promise<void>;
}

/** How a turn's ledger came out of the cache (traced; counted on /metrics). */
export type CacheOutcome = 'miss' | 'not_modified' | 'refreshed' | 'failed';

export interface CachedLedger {
  ledger: AcquiredLedger;
  outcome: Exclude<CacheOutcome, 'failed'>;
  /** Full-ledger acquisitions this call made (0 after a 304; 2 after a retried inconsistent snapshot). */
  acquisitions: number;
}
