/**
 * The QueryStore patient ledger cache (hub-contract §5.4 "Patient ledger cache" and its Target; clients.md §4).
 *
 * Process-wide and memory-only (nothing here touches the disk or logs): an LRU bounded by entries and by bytes,
 * keyed by a SHA-256 of (deployment identity, patient), so patient ids are never kept in clear as keys.
 * Every `get` revalidates: a warm key sends its ETag and reuses the copy only when QueryStore answers 304; a new
 * ledger replaces the entry. Concurrent calls for one key share one in-flight fetch (single-flight). The cache
 * knows nothing about HTTP: it is given the fetch function.
 *
 * Decisions:
 * - Never stale after a failure: a failed call rejects; the cached copy is not returned, and the next call
 *   revalidates again (a copy is only ever reused on a 304).
 * - A failure keeps the entry only when it says nothing about the copy (`transient`: unreachable, 5xx/429,
 *   cancelled, inconsistent snapshot): after an outage a 304 then costs one request instead of re-paging the
 *   whole chart. An authoritative refusal or a broken answer (401/403/404 and other 4xx, contract, unknown
 *   errors) evicts it: the account lost access or the patient is gone, so the chart text is not retained, and
 *   a broken exchange leaves no validator behind. Either way, the next call revalidates.
 * - Shared callers of one flight all get that flight's outcome (20 concurrent cold callers all see `miss`).
 *   Counters count flights (QueryStore round trips), not callers.
 * - Cancellation: a caller's own signal rejects only that caller. The shared fetch's signal aborts when every
 *   waiter has aborted; such an abandoned flight leaves the key at once (a later caller starts afresh), and its
 *   late result is neither stored nor counted (it might be older than the newer flight's).
 * - `purge()` drops every entry; flights in progress still answer their callers, but a result that was fetched
 *   across a purge is not stored (the admin asked for an empty cache).
 * - Flights live in their own map and leave it when they settle, so evicting an entry never drops a flight
 *   (no lost single-flight) and an idle key holds nothing (no leak).
 */
import { createHash } from 'node:crypto';
import { QuerystoreError } from './types';
import type { AcquiredLedger, CachedLedger, LedgerFetchResult } from './types';

export const DEFAULT_MAX_ENTRIES = 32;
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export interface LedgerKey {
  /** Deployment identity: base URL + service principal (`QuerystoreApi.identity`). */
  identity: string;
  patient: string;
}

/** Acquires the full ledger; `etag` (when given) goes in If-None-Match on the first page. */
export type LedgerFetch = (etag: string | undefined, signal: AbortSignal) => Promise<LedgerFetchResult>;

/** Counters for /metrics: numbers only (no keys, patients, ETags or chart text). */
export interface LedgerCacheStats {
  entries: number;
  bytes: number;
  misses: number;
  not_modified: number;
  refreshed: number;
  failures: number;
  evictions: number;
  oversized: number;
  inflight: number;
  purges: number;
}

interface Flight {
  readonly key: string;
  readonly controller: AbortController;
  /** `purge()` count at start: a result fetched across a purge is not stored. */
  readonly generation: number;
  readonly promise: Promise<CachedLedger>;
  /** Callers still waiting (not aborted). */
  waiters: number;
}

type Counter = 'misses' | 'not_modified' | 'refreshed' | 'failures' | 'evictions' | 'oversized' | 'purges';

export class PatientLedgerCache {
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  /** Insertion order is recency order: the first key is the least recently used. */
  private readonly entries = new Map<string, AcquiredLedger>();
  private readonly flights = new Map<string, Flight>();
  private bytes = 0;
  private running = 0;
  private generation = 0;
  private readonly counters: Record<Counter, number> = { misses: 0, not_modified: 0, refreshed: 0, failures: 0, evictions: 0, oversized: 0, purges: 0 };

  constructor(opts: { maxEntries?: number; maxBytes?: number } = {}) {
    const { maxEntries = DEFAULT_MAX_ENTRIES, maxBytes = DEFAULT_MAX_BYTES } = opts;
    if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0) throw new RangeError(`PatientLedgerCache: maxEntries must be a positive integer (got ${String(maxEntries)})`);
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw new RangeError(`PatientLedgerCache: maxBytes must be a positive integer (got ${String(maxBytes)})`);
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /** The patient's current ledger: revalidated (or acquired) now, shared with concurrent callers of the key. */
  get(key: LedgerKey, fetch: LedgerFetch, opts: { signal?: AbortSignal } = {}): Promise<CachedLedger> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(cancelled());
    const hashed = hashKey(key);
    const flight = this.flights.get(hashed) ?? this.start(hashed, fetch);
    return this.join(flight, signal);
  }

  /** Drops every entry (admin route); returns how many. */
  purge(): number {
    const dropped = this.entries.size;
    this.entries.clear();
    this.bytes = 0;
    this.generation += 1;
    this.counters.purges += 1;
    return dropped;
  }

  stats(): LedgerCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, inflight: this.running, ...this.counters };
  }

  private start(hashed: string, fetch: LedgerFetch): Flight {
    const controller = new AbortController();
    // The validator is the entry as it stands when the flight starts; a 304 proves exactly that copy current.
    const cached = this.entries.get(hashed);
    this.running += 1;
    const flight: Flight = {
      key: hashed,
      controller,
      generation: this.generation,
      waiters: 0,
      promise: revalidate(cached, fetch, controller.signal).then(
        (result) => {
          this.finish(flight);
          if (!controller.signal.aborted) {
            this.counters[result.outcome === 'miss' ? 'misses' : result.outcome] += 1;
            if (flight.generation === this.generation) this.store(hashed, result.ledger);
          }
          return result;
        },
        (err: unknown) => {
          this.finish(flight);
          if (!controller.signal.aborted) {
            this.counters.failures += 1;
            if (!transient(err)) this.remove(hashed);
          }
          throw err;
        },
      ),
    };
    // Every waiter may have left (aborted): the flight's own rejection must not surface as unhandled.
    flight.promise.catch(() => undefined);
    this.flights.set(hashed, flight);
    return flight;
  }

  /** One caller's view of a flight: its own signal rejects only this caller. */
  private join(flight: Flight, signal: AbortSignal | undefined): Promise<CachedLedger> {
    flight.waiters += 1;
    if (!signal) return flight.promise;
    return new Promise<CachedLedger>((resolve, reject) => {
      const onAbort = (): void => {
        reject(cancelled());
        flight.waiters -= 1;
        if (flight.waiters === 0) {
          // Nobody wants this result any more: cancel the fetch and let the next caller start a fresh flight.
          flight.controller.abort();
          this.detach(flight);
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (result) => (signal.removeEventListener('abort', onAbort), resolve(result)),
        (err: unknown) => (signal.removeEventListener('abort', onAbort), reject(err)),
      );
    });
  }

  /** The flight leaves its key: when abandoned (at once), else when its fetch completes. */
  private detach(flight: Flight): void {
    if (this.flights.get(flight.key) === flight) this.flights.delete(flight.key);
  }

  private finish(flight: Flight): void {
    this.running -= 1;
    this.detach(flight);
  }

  /** Inserts (or touches) an entry, then evicts least recently used entries until both bounds hold. */
  private store(hashed: string, ledger: AcquiredLedger): void {
    this.remove(hashed);
    if (ledger.bytes > this.maxBytes) {
      // Returned to the callers but not kept: it alone would break the byte bound.
      this.counters.oversized += 1;
      return;
    }
    this.entries.set(hashed, ledger);
    this.bytes += ledger.bytes;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.remove(oldest);
      this.counters.evictions += 1;
    }
  }

  private remove(hashed: string): void {
    const ledger = this.entries.get(hashed);
    if (!ledger) return;
    this.entries.delete(hashed);
    this.bytes -= ledger.bytes;
  }
}

/** One revalidation: conditional when a copy is cached; an inconsistent snapshot is retried exactly once. */
async function revalidate(cached: AcquiredLedger | undefined, fetch: LedgerFetch, signal: AbortSignal): Promise<CachedLedger> {
  let acquisitions = 0;
  for (let attempt = 1; ; attempt += 1) {
    let result: LedgerFetchResult;
    try {
      result = await fetch(cached?.etag, signal);
    } catch (err) {
      if (!(err instanceof QuerystoreError && err.kind === 'inconsistent_snapshot')) throw err;
      acquisitions += 1;
      if (attempt > 1 || signal.aborted) throw err;
      continue;
    }
    if (result.kind === 'not_modified') {
      if (!cached) throw new QuerystoreError('contract', 'QueryStore answered 304 Not Modified for a ledger the hub does not hold');
      return { ledger: cached, outcome: 'not_modified', acquisitions };
    }
    const { bytes } = result.ledger;
    // A bad size would silently disable the byte bound.
    if (!Number.isFinite(bytes) || bytes < 0) throw new QuerystoreError('contract', 'QueryStore ledger has no valid byte size');
    acquisitions += 1;
    return { ledger: result.ledger, outcome: cached ? 'refreshed' : 'miss', acquisitions };
  }
}

/** Failures that say nothing about the cached copy: the entry (and its validator) is kept for the next turn. */
function transient(err: unknown): boolean {
  if (!(err instanceof QuerystoreError)) return false;
  if (err.kind === 'http') return err.status === null || err.status === 429 || err.status >= 500;
  return err.kind === 'transport' || err.kind === 'aborted' || err.kind === 'inconsistent_snapshot';
}

function hashKey(key: LedgerKey): string {
  return createHash('sha256').update(`${key.identity}\u0000${key.patient}`, 'utf8').digest('hex');
}

function cancelled(): QuerystoreError {
  return new QuerystoreError('aborted', 'The QueryStore ledger request was cancelled');
}
