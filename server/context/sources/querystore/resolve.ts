/**
 * Resolution of QueryStore's question signals against the patient ledger (hub-contract §5.4 "Ranked
 * hits", "Slice tiers" and the Target): ranked-search hits are unverified candidates and slice rows
 * must match the ledger snapshot, so both are trusted only when the ledger holds the same identity
 * `(resourceType, resourceUuid)` with the same **content digest** (the reference hub compared only
 * `lastModified`).
 *
 * Everything here is pure. The caller resolves, refreshes the ledger once (through the cache) when
 * anything is unresolved, resolves again against the refreshed ledger, and drops what still does not
 * resolve; then `annotate` writes the ranks and tiers onto new evidence records.
 */
import { createHash } from 'node:crypto';
import { sortedKeyJson } from '../../../llm';
import { SLICE_TIERS, type EvidenceLedger, type EvidenceRecord, type SliceTier } from '../../types';
import { QUERYSTORE_SOURCE, stableIdOf } from './serialize';
import type { QuerystoreRecord } from './types';

/**
 * Slice tiers, highest first: the order QueryStore lists them (clients.md §4) and the selector ranks
 * them (`SLICE_ORDER` in selector.ts; a test keeps the two in step).
 */
/** Highest first (the selector ranks slice tiers in this order too). */
export const SLICE_TIER_ORDER = SLICE_TIERS;
const TIER_RANK: ReadonlyMap<string, number> = new Map(SLICE_TIER_ORDER.map((t, i) => [t, i]));

export interface Identity {
  resourceType: string;
  resourceUuid: string;
}

/** Why a signal did not resolve: no such identity in the ledger, or the ledger holds other content. */
export type UnresolvedReason = 'not_in_ledger' | 'content_differs';

export interface Unresolved extends Identity {
  reason: UnresolvedReason;
}

/** Unambiguous map key of an identity (`querystore:a:b:c` could be either `a:b`/`c` or `a`/`b:c`). */
export function identityKey(resourceType: string, resourceUuid: string): string {
  return JSON.stringify([resourceType, resourceUuid]);
}

/** The content a digest covers: never rank or tier (they describe the question, not the record). */
function contentOf(record: QuerystoreRecord): Record<string, unknown> {
  return {
    resourceType: record.resourceType,
    resourceUuid: record.resourceUuid,
    date: record.date ?? null,
    clinicalDate: record.clinicalDate ?? null,
    dateKind: record.dateKind ?? null,
    text: record.text,
    metadata: record.metadata ?? {},
    lastModified: record.lastModified ?? null,
  };
}

/**
 * SHA-256 (hex) over the sorted-key JSON of the record's content fields: resourceType, resourceUuid,
 * date, clinicalDate, dateKind, text, metadata, lastModified. An absent optional field digests as null
 * (a hit that omits `clinicalDate` matches a ledger record whose `clinicalDate` is null).
 */
export function contentDigest(record: QuerystoreRecord): string {
  return createHash('sha256').update(sortedKeyJson(contentOf(record)), 'utf8').digest('hex');
}

/** What a lookup is built from: the evidence records of the ledger (their `raw` QueryStore records), or the QueryStore records themselves. */
export type LedgerInput = readonly EvidenceRecord[] | readonly QuerystoreRecord[] | LedgerLookup;

function isEvidence(r: EvidenceRecord | QuerystoreRecord): r is EvidenceRecord {
  return typeof (r as EvidenceRecord).stableId === 'string' && typeof (r as EvidenceRecord).raw === 'object';
}

/**
 * The ledger by identity; a signal resolves when its record has the same content digest (`sameContent`).
 * Evidence records of other sources
 * are not part of the QueryStore ledger; a QueryStore evidence record digests its `raw` record (the
 * serializer keeps the QueryStore record there, unchanged).
 */
export class LedgerLookup {
  private readonly byKey = new Map<string, QuerystoreRecord>();

  constructor(records: readonly EvidenceRecord[] | readonly QuerystoreRecord[]) {
    // The client rejects duplicate identities; should one slip through, the first (newest) stands.
    for (const r of records as ReadonlyArray<EvidenceRecord | QuerystoreRecord>) {
      let content: QuerystoreRecord;
      if (isEvidence(r)) {
        if (r.source !== QUERYSTORE_SOURCE || r.resourceUuid === null) continue;
        content = { ...(r.raw as unknown as QuerystoreRecord), resourceType: r.resourceType, resourceUuid: r.resourceUuid };
      } else {
        content = r;
      }
      const key = identityKey(content.resourceType, content.resourceUuid);
      if (!this.byKey.has(key)) this.byKey.set(key, content);
    }
  }

  /** Null when the signal resolves, else why it does not. */
  check(signal: QuerystoreRecord): UnresolvedReason | null {
    const record = this.byKey.get(identityKey(signal.resourceType, signal.resourceUuid));
    if (!record) return 'not_in_ledger';
    return sameContent(signal, record) ? null : 'content_differs';
  }
}

/**
 * Whether two records have equal content digests, decided without hashing: the digest covers the canonical
 * (sorted-key) JSON of the content fields, so equal digests ⇔ equal fields and equal canonical metadata. A turn
 * resolves up to 520 candidates; hashing each (and its ledger twin) cost more than the rest of the source.
 */
export function sameContent(a: QuerystoreRecord, b: QuerystoreRecord): boolean {
  if (a.resourceType !== b.resourceType || a.resourceUuid !== b.resourceUuid || a.text !== b.text) return false;
  if ((a.date ?? null) !== (b.date ?? null) || (a.clinicalDate ?? null) !== (b.clinicalDate ?? null)) return false;
  if ((a.dateKind ?? null) !== (b.dateKind ?? null) || (a.lastModified ?? null) !== (b.lastModified ?? null)) return false;
  const ma = a.metadata ?? {};
  const mb = b.metadata ?? {};
  if (ma === mb) return true;
  // One server writes both in the same key order; the canonical form decides when it does not.
  return JSON.stringify(ma) === JSON.stringify(mb) || sortedKeyJson(ma) === sortedKeyJson(mb);
}

function lookupOf(ledger: LedgerInput): LedgerLookup {
  return ledger instanceof LedgerLookup ? ledger : new LedgerLookup(ledger);
}

export interface RankResolution {
  /** identityKey → 1-based rank among the RESOLVED hits. */
  ranks: Map<string, number>;
  /** Hits the ledger does not confirm, best rank first, each identity once. */
  unresolved: Unresolved[];
}

/**
 * Ranked hits in rank order (their `rank`, else response order; each identity counted once, at its
 * best rank). A hit resolves when the ledger holds its identity with the same content digest; the
 * resolved hits are numbered 1, 2, … in that order, so a dropped hit leaves no gap.
 */
export function resolveRanked(ledger: LedgerInput, hits: readonly QuerystoreRecord[]): RankResolution {
  const lookup = lookupOf(ledger);
  const ordered = hits
    .map((hit, position) => ({ hit, position, rank: typeof hit.rank === 'number' && Number.isFinite(hit.rank) ? hit.rank : Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.rank - b.rank || a.position - b.position);
  const ranks = new Map<string, number>();
  const unresolved: Unresolved[] = [];
  const seen = new Set<string>();
  for (const { hit } of ordered) {
    const key = identityKey(hit.resourceType, hit.resourceUuid);
    if (seen.has(key)) continue;
    seen.add(key);
    const reason = lookup.check(hit);
    if (reason === null) ranks.set(key, ranks.size + 1);
    else unresolved.push({ resourceType: hit.resourceType, resourceUuid: hit.resourceUuid, reason });
  }
  return { ranks, unresolved };
}

export interface SliceResolution {
  /** identityKey → the highest tier among the identity's resolved rows. */
  tiers: Map<string, SliceTier>;
  /** Rows the ledger does not confirm, in row order, each identity once (an identity that resolved never). */
  unresolved: Unresolved[];
  /** Stable ids (`querystore:<type>:<uuid>`) of the unresolved identities that a row marks `mandatory`. */
  unresolvedMandatory: string[];
  /** Rows whose tier is not one of the six slice tiers (never trusted, never ranked). */
  unknownTierRows: number;
}

/**
 * Slice rows → identity → tier, each row digest-checked like a ranked hit. An identity on several
 * rows keeps its highest tier (`SLICE_TIER_ORDER`); a row that does not resolve never lowers or raises
 * the tier of one that does.
 */
export function resolveSlice(ledger: LedgerInput, rows: readonly QuerystoreRecord[]): SliceResolution {
  const lookup = lookupOf(ledger);
  const tiers = new Map<string, SliceTier>();
  const failed = new Map<string, Unresolved & { mandatory: boolean }>();
  let unknownTierRows = 0;
  for (const row of rows) {
    const tier = row.tier;
    const rank = tier === undefined ? undefined : TIER_RANK.get(tier);
    if (tier === undefined || rank === undefined) {
      unknownTierRows++;
      continue;
    }
    const key = identityKey(row.resourceType, row.resourceUuid);
    const reason = lookup.check(row);
    if (reason !== null) {
      const held = failed.get(key);
      if (held) held.mandatory ||= tier === 'mandatory';
      else failed.set(key, { resourceType: row.resourceType, resourceUuid: row.resourceUuid, reason, mandatory: tier === 'mandatory' });
      continue;
    }
    const held = tiers.get(key);
    if (held === undefined || rank < TIER_RANK.get(held)!) tiers.set(key, tier);
  }
  const lost = [...failed].filter(([key]) => !tiers.has(key)).map(([, u]) => u);
  return {
    tiers,
    unresolved: lost.map(({ resourceType, resourceUuid, reason }) => ({ resourceType, resourceUuid, reason })),
    unresolvedMandatory: lost.filter((u) => u.mandatory).map((u) => stableIdOf(u.resourceType, u.resourceUuid)),
    unknownTierRows,
  };
}

export interface Signals {
  ranks?: ReadonlyMap<string, number>;
  tiers?: ReadonlyMap<string, SliceTier>;
}

/**
 * New records, ledger order, one per input: every field copied, `querystoreRank` / `sliceTier` set from
 * the signals (null when the signal names no such identity, so a previous turn's signals never stick).
 * Records of other sources are copied unchanged. `mandatory` is not touched: the selector reads a
 * `mandatory` tier itself.
 */
export function annotate(records: readonly EvidenceRecord[], signals: Signals): EvidenceRecord[] {
  return records.map((r) => {
    if (r.source !== QUERYSTORE_SOURCE || r.resourceUuid === null) return { ...r };
    const key = identityKey(r.resourceType, r.resourceUuid);
    return { ...r, querystoreRank: signals.ranks?.get(key) ?? null, sliceTier: signals.tiers?.get(key) ?? null };
  });
}

/** `annotate` over a ledger: the chart text is unchanged (ranks and tiers do not change a line). */
export function annotateLedger(ledger: EvidenceLedger, signals: Signals): EvidenceLedger {
  return { ...ledger, records: annotate(ledger.records, signals), sources: [...ledger.sources] };
}

export interface Resolution {
  ranks: Map<string, number>;
  tiers: Map<string, SliceTier>;
  /** Every unresolved identity of either signal, once: non-empty ⇒ refresh the ledger once and resolve again. */
  unresolved: Unresolved[];
  unresolvedMandatory: string[];
}

/** Both signals against one ledger (one lookup), with one combined unresolved list. */
export function resolveSignals(ledger: LedgerInput, signals: { hits?: readonly QuerystoreRecord[]; rows?: readonly QuerystoreRecord[] }): Resolution {
  const lookup = lookupOf(ledger);
  const ranked = resolveRanked(lookup, signals.hits ?? []);
  const sliced = resolveSlice(lookup, signals.rows ?? []);
  const seen = new Set<string>();
  const unresolved: Unresolved[] = [];
  for (const u of [...ranked.unresolved, ...sliced.unresolved]) {
    const key = identityKey(u.resourceType, u.resourceUuid);
    if (!seen.has(key)) {
      seen.add(key);
      unresolved.push(u);
    }
  }
  return { ranks: ranked.ranks, tiers: sliced.tiers, unresolved, unresolvedMandatory: sliced.unresolvedMandatory };
}
