/**
 * Validation of QueryStore's response bodies (clients.md §4, hub-contract §5.4) into the shapes of types.ts,
 * and the checks that span the pages of one full-ledger acquisition. Pure: no I/O. Every failure is a
 * `QuerystoreError('contract' | 'inconsistent_snapshot')` whose message names the field, page and position
 * at fault but never a value: record text, resource UUIDs (a `patient` record's UUID is the patient's) and
 * patient ids stay out of messages, traces and logs.
 */
import type { DateKind, SliceTier } from '../../types';
import { type AcquiredLedger, type LedgerPage, type QuerystoreRecord, QuerystoreError } from './types';

/** Page size of full-ledger acquisitions (hub-contract §5.4). */
export const LEDGER_PAGE_LIMIT = 500;

const DATE_KINDS: ReadonlySet<string> = new Set<DateKind>(['clinical_event', 'administrative', 'unknown']);
const SLICE_TIERS: ReadonlySet<string> = new Set<SliceTier>(['mandatory', 'exact', 'recency_anchor', 'typed', 'similarity', 'panel']);

type Json = Record<string, unknown>;
/** What a record may carry beyond the common fields, by the call that returned it. */
type RecordFlavour = 'ledger' | 'ranked' | 'slice';

export function contractError(where: string, what: string): QuerystoreError {
  return new QuerystoreError('contract', `Malformed QueryStore response (${where}): ${what}.`);
}

/** A value's JSON kind for messages (never the value itself). */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** `<field> must be <want>, not <kind>` (or `… (it is missing)`). */
function mustBe(field: string, want: string, v: unknown): string {
  return `${field} must be ${want}${v === undefined ? ' (it is missing)' : `, not ${kindOf(v)}`}`;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isNonBlank(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

/** A body's text as a JSON object; malformed JSON or any other top-level value breaks the contract. */
export function parseBody(text: string, where: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw contractError(where, 'the body is not valid JSON');
  }
  if (!isObject(parsed)) throw contractError(where, `the body is ${kindOf(parsed)}, not a JSON object`);
  return parsed;
}

/** `field` as string | null; absent counts as null (QueryStore may omit null fields). */
function nullableString(raw: Json, field: string, where: string): string | null {
  const v = raw[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw contractError(where, mustBe(field, 'a string or null', v));
  return v;
}

/** One record; only the fields the hub knows are copied (an `embedding` or other extras never travel on). */
export function toRecord(value: unknown, where: string, flavour: RecordFlavour = 'ledger'): QuerystoreRecord {
  if (!isObject(value)) throw contractError(where, `the record is ${kindOf(value)}, not an object`);
  if (!isNonBlank(value.resourceType)) throw contractError(where, mustBe('resourceType', 'a non-blank string', value.resourceType));
  if (!isNonBlank(value.resourceUuid)) throw contractError(where, mustBe('resourceUuid', 'a non-blank string', value.resourceUuid));
  if (typeof value.text !== 'string') throw contractError(where, mustBe('text', 'a string', value.text));
  const metadata = value.metadata ?? {};
  if (!isObject(metadata)) throw contractError(where, mustBe('metadata', 'an object', metadata));
  const dateKind = value.dateKind ?? null;
  if (dateKind !== null && !(typeof dateKind === 'string' && DATE_KINDS.has(dateKind))) {
    throw contractError(where, 'dateKind must be clinical_event, administrative, unknown or null');
  }
  const record: QuerystoreRecord = {
    resourceType: value.resourceType,
    resourceUuid: value.resourceUuid,
    date: nullableString(value, 'date', where),
    clinicalDate: nullableString(value, 'clinicalDate', where),
    dateKind: dateKind as DateKind | null,
    text: value.text,
    metadata,
    lastModified: nullableString(value, 'lastModified', where),
  };
  if (flavour === 'ranked' && value.rank !== undefined && value.rank !== null) record.rank = toRank(value.rank, where);
  if (flavour === 'slice') record.tier = toTier(value.tier, where);
  return record;
}

function toRank(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw contractError(where, 'rank must be an integer of at least 1');
  return v;
}

function toTier(v: unknown, where: string): SliceTier {
  if (typeof v !== 'string' || !SLICE_TIERS.has(v)) {
    throw contractError(where, 'tier must be one of mandatory, exact, recency_anchor, typed, similarity, panel');
  }
  return v as SliceTier;
}

function toResults(body: Json, where: string, flavour: RecordFlavour): QuerystoreRecord[] {
  if (!Array.isArray(body.results)) throw contractError(where, mustBe('results', 'an array', body.results));
  return body.results.map((r: unknown, i) => toRecord(r, `${where}, record ${i + 1}`, flavour));
}

/** One full-ledger page. `pageNumber` is 1-based; `etag` is the page's ETag header (null when absent). */
export function toLedgerPage(body: Json, etag: string | null, pageNumber: number): LedgerPage {
  const where = `ledger page ${pageNumber}`;
  const { totalCount, snapshotId } = body;
  if (typeof totalCount !== 'number' || !Number.isInteger(totalCount) || totalCount < 0) {
    throw contractError(where, mustBe('totalCount', 'an integer of at least 0', totalCount));
  }
  if (!isNonBlank(snapshotId)) throw contractError(where, mustBe('snapshotId', 'a non-blank string', snapshotId));
  const results = toResults(body, where, 'ledger');
  if (results.length > LEDGER_PAGE_LIMIT) throw contractError(where, `the page holds more than limit=${LEDGER_PAGE_LIMIT} records`);
  return { results, totalCount, snapshotId, etag: isNonBlank(etag) ? etag : null };
}

/** Ranked-search hits (`q=`): records with an optional 1-based rank; no snapshot or ETag (uncached). */
export function toRankedHits(body: Json): QuerystoreRecord[] {
  return toResults(body, 'ranked search', 'ranked');
}

/** Context-slice rows (`mode=context`): every row needs a known tier. */
export function toSliceRows(body: Json): QuerystoreRecord[] {
  return toResults(body, 'context slice', 'slice');
}

/**
 * The pages of one acquisition, checked as they arrive: the first page fixes the ETag, snapshotId and
 * totalCount; a later page with another snapshotId means the chart changed while paging (checked first: a
 * changed chart usually changes the total too, and that case must stay retryable); identities must be unique.
 */
export class LedgerAssembly {
  private readonly records: QuerystoreRecord[] = [];
  private readonly identities = new Set<string>();
  private first: LedgerPage | null = null;
  private pages = 0;
  private bytes = 0;
  private lastPageSize = 0;

  /** Adds the next page; `bytes` = its body's UTF-8 length. */
  add(page: LedgerPage, bytes: number): void {
    this.pages++;
    const where = `ledger page ${this.pages}`;
    const first = this.first ?? page;
    if (this.first === null) {
      if (page.etag === null) throw contractError(where, 'the first page has no ETag header');
      this.first = page;
    } else if (page.snapshotId !== first.snapshotId) {
      throw new QuerystoreError('inconsistent_snapshot', `QueryStore's chart changed while paging: ${where} has another snapshotId than page 1.`);
    } else if (page.totalCount !== first.totalCount) {
      throw contractError(where, `totalCount changed between pages (${first.totalCount} on page 1, ${page.totalCount} here)`);
    }
    page.results.forEach((r, i) => {
      // JSON of the pair: no separator a UUID or type could contain can make two identities collide.
      const identity = JSON.stringify([r.resourceType, r.resourceUuid]);
      if (this.identities.has(identity)) {
        throw contractError(`${where}, record ${i + 1}`, `the record repeats the identity of an earlier one (resourceType ${r.resourceType})`);
      }
      this.identities.add(identity);
      this.records.push(r);
    });
    this.bytes += bytes;
    this.lastPageSize = page.results.length;
  }

  /** `startIndex` of the next page. */
  get nextStartIndex(): number {
    return this.records.length;
  }

  /** Paging stops on an empty or short page, or once `startIndex >= totalCount`. */
  get complete(): boolean {
    if (this.first === null) return false;
    return this.lastPageSize < LEDGER_PAGE_LIMIT || this.records.length >= this.first.totalCount;
  }

  /** The acquired ledger; its record count must equal totalCount. */
  finish(): AcquiredLedger {
    const first = this.first;
    if (first === null || first.etag === null) throw contractError('ledger', 'no page was read');
    const total = first.totalCount;
    if (this.records.length < total) throw contractError('ledger', `truncated: ${this.records.length} of totalCount=${total} records arrived`);
    if (this.records.length > total) throw contractError('ledger', `${this.records.length} records arrived, more than totalCount=${total}`);
    return { records: this.records, etag: first.etag, snapshotId: first.snapshotId, pages: this.pages, bytes: this.bytes };
  }
}
