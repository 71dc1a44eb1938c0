/**
 * The QueryStore context source (hub-contract §5.4): for a `patient` request, the patient's complete ledger
 * (through the revalidating cache), QueryStore's ranked search and its question-scoped context slice, fetched
 * together. Ranked hits and slice rows are unverified until they resolve against the ledger by identity and
 * content digest; what does not resolve triggers one refresh of the ledger, then ranked hits are dropped
 * (counted) and an unresolvable `mandatory` row fails the turn — mandatory evidence is never dropped silently.
 * Ranked search and slice failures degrade (the local selector and its clinical core apply) and are reported.
 */
import { performance } from 'node:perf_hooks';
import { contextError } from '../../../errors';
import type { HubMetrics } from '../../../metrics';
import type { ContextRequest, ContextSource } from '../../source';
import { emptyLedger, type EvidenceLedger, type EvidenceRecord, type SourceReport } from '../../types';
import type { PatientLedgerCache } from './cache';
import { abortError, isQuerystoreError, querystoreFailure } from './errors';
import { isTemporalQuestion } from './question';
import { annotate, LedgerLookup, resolveRanked, resolveSlice } from './resolve';
import { serializeChart, toEvidenceRecords } from './serialize';
import type { AcquiredLedger, CacheOutcome, CachedLedger, QuerystoreApi, QuerystoreRecord } from './types';

export interface QuerystoreSourceDeps {
  api: QuerystoreApi;
  cache: PatientLedgerCache;
  metrics?: HubMetrics | null;
}

type Part = { status: 'ok'; rows: QuerystoreRecord[] } | { status: 'failed'; failure: string } | { status: 'skipped' };

export function querystoreSource(deps: QuerystoreSourceDeps): ContextSource {
  return {
    name: 'querystore',
    priority: 50,
    supportsPatient: true,
    fetch: (req) => fetchPatientLedger(deps, req),
  };
}

async function fetchPatientLedger(deps: QuerystoreSourceDeps, req: ContextRequest): Promise<EvidenceLedger> {
  if (req.patient === null) {
    if (req.explicit) throw contextError('context_source_unavailable', 'querystore', 'The querystore source was requested but the request names no patient.');
    return emptyLedger();
  }
  const patient = req.patient;
  const started = performance.now();
  // The ledger, the ranked search and the slice are independent reads: fetched together, one turn's signal.
  const local = new AbortController();
  const onAbort = () => local.abort(req.signal?.reason);
  req.signal?.addEventListener('abort', onAbort, { once: true });
  const temporal = isTemporalQuestion(req.question);
  let cacheOutcome: CacheOutcome = 'failed';
  try {
    const rankedP = optionalPart(req.question.trim() === '', () => deps.api.rankedSearch(patient, req.question, { signal: local.signal }));
    const sliceP = optionalPart(false, () => deps.api.contextSlice(patient, { question: req.question, temporal, signal: local.signal }));
    let cached: CachedLedger;
    try {
      cached = await acquire(deps, patient, local.signal);
    } catch (err) {
      local.abort(); // the ranked search and slice are of no use now
      await Promise.allSettled([rankedP, sliceP]);
      throw err;
    }
    cacheOutcome = cached.outcome;
    const [ranked, slice] = await Promise.all([rankedP, sliceP]);
    if (req.signal?.aborted) throw abortError(req.signal);

    let { records, lookup } = prepare(cached.ledger);
    let rankedHits = ranked.status === 'ok' ? resolveRanked(lookup, ranked.rows) : null;
    let sliceTiers = slice.status === 'ok' ? resolveSlice(lookup, slice.rows) : null;
    let refreshed: 'not_needed' | 'unchanged' | 'refreshed' | 'failed' = 'not_needed';
    if ((rankedHits?.unresolved.length ?? 0) + (sliceTiers?.unresolved.length ?? 0) > 0) {
      // The candidates and the ledger were read from different versions of the chart (either may be the newer):
      // one refresh of the ledger (through the cache) and one new read of each part that did not resolve.
      const rereadRanked = (rankedHits?.unresolved.length ?? 0) > 0;
      const rereadSlice = (sliceTiers?.unresolved.length ?? 0) > 0;
      const [again, ranked2, slice2] = await Promise.all([
        acquire(deps, patient, local.signal).then((c) => c, () => null),
        rereadRanked ? optionalPart(false, () => deps.api.rankedSearch(patient, req.question, { signal: local.signal })) : Promise.resolve(ranked),
        rereadSlice ? optionalPart(false, () => deps.api.contextSlice(patient, { question: req.question, temporal, signal: local.signal })) : Promise.resolve(slice),
      ]);
      if (req.signal?.aborted) throw abortError(req.signal);
      if (again === null) refreshed = 'failed'; // the ledger already validated stays; unresolved candidates are dropped
      else {
        refreshed = again.outcome === 'not_modified' ? 'unchanged' : 'refreshed';
        if (again.outcome !== 'not_modified') {
          cached = again;
          ({ records, lookup } = prepare(cached.ledger));
        }
      }
      // A part whose new read failed keeps its first answer (resolved against the ledger as it now is).
      if (rankedHits) rankedHits = resolveRanked(lookup, rowsOf(ranked2, ranked));
      if (sliceTiers) sliceTiers = resolveSlice(lookup, rowsOf(slice2, slice));
    }
    const lostMandatory = sliceTiers?.unresolvedMandatory ?? [];
    if (lostMandatory.length > 0) {
      throw contextError('context_source_failed', 'querystore',
        `Querystore could not retrieve patient '${patient}': its context slice marks ${lostMandatory.length} record(s) mandatory that its chart does not hold (after one refresh): ${lostMandatory.join(', ')}.`,
        { querystore_failure: 'unresolved_mandatory', mandatory_ids: lostMandatory });
    }
    const annotated = annotate(records, { ranks: rankedHits?.ranks ?? new Map(), tiers: sliceTiers?.tiers ?? new Map() });
    const report: SourceReport = {
      source: 'querystore',
      snapshot_id: cached.ledger.snapshotId,
      cache: cacheOutcome,
      acquisitions: cached.acquisitions,
      pages: cached.ledger.pages,
      ledger_records: annotated.length,
      candidate_refresh: refreshed,
      ranked: partReport(ranked, rankedHits && { resolved: rankedHits.ranks.size, dropped: rankedHits.unresolved.length }),
      slice: {
        ...partReport(slice, sliceTiers && { resolved: sliceTiers.tiers.size, dropped: sliceTiers.unresolved.length }),
        temporal,
        tiers: tierCounts(sliceTiers?.tiers),
      },
      fetch_ms: Math.round((performance.now() - started) * 10) / 10,
    };
    deps.metrics?.observeQuerystore({ cache: cached.outcome, seconds: (performance.now() - started) / 1000, ranked: ranked.status, slice: slice.status });
    req.report?.(report);
    // The serialized chart (clinical dates, group names, date-kind markers) is what prompts and temporal facts read.
    return { records: annotated, originalText: serializeChart(annotated), preamble: '', sources: ['querystore'] };
  } catch (err) {
    const failure = req.signal?.aborted ? 'aborted' : isQuerystoreError(err) ? err.kind : ((err as { extra?: { querystore_failure?: string } }).extra?.querystore_failure ?? 'error');
    deps.metrics?.observeQuerystore({ cache: cacheOutcome, seconds: (performance.now() - started) / 1000, ranked: 'skipped', slice: 'skipped' });
    req.report?.({ source: 'querystore', cache: cacheOutcome, failure, fetch_ms: Math.round((performance.now() - started) * 10) / 10 });
    if (req.signal?.aborted) throw abortError(req.signal);
    if (isQuerystoreError(err)) throw err.kind === 'aborted' ? abortError(req.signal) : querystoreFailure(patient, err);
    throw err;
  } finally {
    req.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Evidence records and lookup of an acquired ledger, built once: after a 304 the cache hands back the same
 * ledger object, so a patient's later turns reuse them (annotation makes the turn's own copies).
 */
const prepared = new WeakMap<AcquiredLedger, { records: EvidenceRecord[]; lookup: LedgerLookup }>();

function prepare(ledger: AcquiredLedger): { records: EvidenceRecord[]; lookup: LedgerLookup } {
  let p = prepared.get(ledger);
  if (!p) prepared.set(ledger, (p = { records: toEvidenceRecords(ledger.records), lookup: new LedgerLookup(ledger.records) }));
  return p;
}

function acquire(deps: QuerystoreSourceDeps, patient: string, signal: AbortSignal): Promise<CachedLedger> {
  return deps.cache.get({ identity: deps.api.identity, patient }, (etag, s) => deps.api.fetchLedger(patient, { etag, signal: s }), { signal });
}

/** The rows of a new read when it succeeded, else of the first one. */
function rowsOf(reread: Part, first: Part): QuerystoreRecord[] {
  if (reread.status === 'ok') return reread.rows;
  return first.status === 'ok' ? first.rows : [];
}

/** A ranked search or slice: its failure is an outcome to report, never the turn's failure. */
async function optionalPart(skip: boolean, call: () => Promise<QuerystoreRecord[]>): Promise<Part> {
  if (skip) return { status: 'skipped' };
  try {
    return { status: 'ok', rows: await call() };
  } catch (err) {
    return { status: 'failed', failure: isQuerystoreError(err) ? err.kind : 'error' };
  }
}

function partReport(part: Part, counts: { resolved: number; dropped: number } | null): Record<string, unknown> {
  if (part.status === 'ok') return { status: 'ok', rows: part.rows.length, ...counts };
  if (part.status === 'failed') return { status: 'failed', failure: part.failure };
  return { status: 'skipped' };
}

function tierCounts(tiers: ReadonlyMap<string, string> | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const tier of tiers?.values() ?? []) counts[tier] = (counts[tier] ?? 0) + 1;
  return counts;
}
