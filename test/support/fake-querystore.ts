/**
 * A scriptable FAKE QueryStore (OpenMRS module) for tests: a real `node:http` server on 127.0.0.1 serving
 * `GET <prefix>/ws/rest/v1/querystore/patientrecord` as clients.md §4 describes it:
 * - `?patient=P` → the full chart, newest first, paged by `limit` (default 50) / `startIndex` (default 0); envelope
 *   `{results, totalCount, links, snapshotId}`; the first page (startIndex 0) carries a strong `ETag` (a digest of the
 *   complete ordered chart) and answers 304 to a matching `If-None-Match`;
 * - `?patient=P&q=…` → ranked top-K (`setRanked`, else a deterministic term-overlap ranking), `rank` 1-based, `totalCount: null`;
 * - `?q=…` alone → the same ranking across every chart;
 * - `?patient=P&mode=context&q=…&temporal=…` → slice rows with a `tier` (`setSlice`, else patient/allergy records
 *   `mandatory`, the rest `similarity`); no snapshotId/ETag;
 * - `limit<=0`, `startIndex<0` or non-integers → 400 `{"error": …}`; neither patient nor q → 400; unknown patient → 404;
 *   missing/wrong HTTP Basic credentials → 401 with `WWW-Authenticate`. Error bodies echo the request (as a server may),
 *   so tests can check that the client never quotes them.
 *
 * Usage:
 *   const qs = new FakeQuerystore({ prefix: '/openmrs' });
 *   const baseUrl = await qs.start();                  // http://127.0.0.1:<port>/openmrs
 *   qs.setChart('p1', qsChart(365, { seed: 'p1' }));   // bumps p1's snapshotId and ETag
 *   qs.fault({ match: { kind: 'ledger', page: 1 }, status: 500, times: 1 });
 *   qs.changeChartAfterPage('p1', 0, otherRecords);     // later pages of that acquisition see another snapshotId
 *   await qs.waitFor(() => qs.counts().ledgerPages >= 2);
 *   qs.requests / qs.counts('p1'); qs.reset(); await qs.stop();
 *
 * Faults (`fault()`) match by kind, patient, page (0-based: startIndex / limit) or a predicate, answer `times` requests
 * (default unlimited) and may: wait `delayMs` before headers, answer `status` + `body`, send the normal 200 with broken
 * JSON, `omit` envelope fields (or the `etag` header), `transform` the envelope, or act on the socket ('destroy' before
 * any byte, 'destroy_mid_body' after part of the body, 'hang' until the client gives up or the fake stops).
 * Records are plain JSON objects (any shape, so tests can plant malformed ones); `qsRecord` and `qsChart` build realistic ones.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WireRecord = object;
export type RequestKind = 'ledger' | 'ranked' | 'slice' | 'search' | 'other';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The raw query string (without `?`), exactly as sent. */
  search: string;
  /** Decoded parameters (last value wins). */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  kind: RequestKind;
  patient: string | null;
  /** Ledger pages only: startIndex / limit (0 = first page). */
  page: number | null;
  /** Status sent (null until the response starts; stays null when the socket was dropped or hung). */
  status: number | null;
  /** The connection closed before the response finished (client abort, timeout, or a socket fault). */
  abandoned: boolean;
}

export interface FaultScript {
  match?: { kind?: RequestKind; patient?: string; page?: number; test?: (r: RecordedRequest) => boolean };
  /** Requests it answers (default unlimited). */
  times?: number;
  /** Wait before headers, then answer as scripted (or normally). */
  delayMs?: number;
  /** Reply with this status and `body` (a string is sent raw; default `{"error": …}`). */
  status?: number;
  body?: unknown;
  /** Extra response headers (also on the normal answer). */
  headers?: Record<string, string>;
  /** The normal 200 answer with its JSON cut short. */
  malformedJson?: boolean;
  /** Envelope fields to drop from the normal answer; 'etag' drops the header. */
  omit?: Array<'results' | 'totalCount' | 'snapshotId' | 'links' | 'etag'>;
  /** Rewrites the normal envelope (plant bad records, change totals, …). */
  transform?: (envelope: Record<string, unknown>, req: RecordedRequest) => unknown;
  socket?: 'destroy' | 'destroy_mid_body' | 'hang';
}

export interface FakeQuerystoreOptions {
  /** HTTP Basic service account (default med-agent-hub / hub-secret). */
  username?: string;
  password?: string;
  /** OpenMRS context path, e.g. '/openmrs' (default ''). */
  prefix?: string;
}

interface Chart { records: WireRecord[]; snapshotId: string; etag: string }
interface Trigger { patient: string; page: number; records: WireRecord[]; times: number }
interface Envelope { body: Record<string, unknown>; etag: string | null }

const RECORD_PATH = '/ws/rest/v1/querystore/patientrecord';
const DEFAULT_LIMIT = 50;
const MANDATORY_TYPES = new Set(['patient', 'allergy']);

export class FakeQuerystore {
  readonly requests: RecordedRequest[] = [];
  private readonly username: string;
  private readonly password: string;
  private readonly prefix: string;
  private readonly charts = new Map<string, Chart>();
  private readonly ranked = new Map<string, WireRecord[]>();
  private readonly slices = new Map<string, WireRecord[]>();
  private faults: FaultScript[] = [];
  private triggers: Trigger[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly delays = new Set<NodeJS.Timeout>();
  private snapshotCounter = 0;
  private server: http.Server | null = null;

  constructor(opts: FakeQuerystoreOptions = {}) {
    this.username = opts.username ?? 'med-agent-hub';
    this.password = opts.password ?? 'hub-secret';
    this.prefix = opts.prefix ?? '';
  }

  /** Starts listening on 127.0.0.1 (random port); returns the base URL including the prefix. */
  async start(): Promise<string> {
    const server = http.createServer((req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}${this.prefix}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const t of this.delays) clearTimeout(t);
    this.delays.clear();
    server.closeAllConnections(); // hung responses and keep-alive sockets must not hold the close
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Replaces a chart (newest first); bumps its snapshotId and its content-derived ETag. */
  setChart(patient: string, records: readonly WireRecord[]): void {
    const copy = records.map((r) => structuredClone(r));
    const digest = createHash('sha256').update(JSON.stringify(copy)).digest('hex').slice(0, 32);
    this.charts.set(patient, { records: copy, snapshotId: `snap-${++this.snapshotCounter}`, etag: `"${digest}"` });
  }

  chart(patient: string): { records: WireRecord[]; snapshotId: string; etag: string } | undefined {
    return this.charts.get(patient);
  }

  /** Ranked hits for `?patient=P&q=…` (any q); ranks are added unless a hit carries one. */
  setRanked(patient: string, hits: readonly WireRecord[]): void {
    this.ranked.set(patient, [...hits]);
  }

  /** Slice rows for `mode=context` (rows should carry `tier`; sent as given). */
  setSlice(patient: string, rows: readonly WireRecord[]): void {
    this.slices.set(patient, [...rows]);
  }

  fault(script: FaultScript): void {
    this.faults.push({ ...script });
  }

  /**
   * After ledger page `pageIndex` (0-based) of `patient` is served, the chart becomes `newRecords`, so later pages
   * of that acquisition report another snapshotId. Fires `times` times (default 1); each firing swaps the chart
   * with the one it replaced, so `times: 2` makes two consecutive acquisitions inconsistent.
   */
  changeChartAfterPage(patient: string, pageIndex: number, newRecords: readonly WireRecord[], opts: { times?: number } = {}): void {
    this.triggers.push({ patient, page: pageIndex, records: [...newRecords], times: opts.times ?? 1 });
  }

  /** Forgets recorded requests, faults, scripted hits/slices and chart triggers; charts stay. */
  reset(): void {
    this.requests.length = 0;
    this.faults = [];
    this.triggers = [];
    this.ranked.clear();
    this.slices.clear();
  }

  /** Counters for cache tests: acquisitions = first ledger pages answered 200. */
  counts(patient?: string): { requests: number; ledgerPages: number; firstPages: number; notModified: number; acquisitions: number } {
    const rs = this.requests.filter((r) => patient === undefined || r.patient === patient);
    const ledger = rs.filter((r) => r.kind === 'ledger');
    const first = ledger.filter((r) => r.page === 0);
    return {
      requests: rs.length,
      ledgerPages: ledger.length,
      firstPages: first.length,
      notModified: ledger.filter((r) => r.status === 304).length,
      acquisitions: first.filter((r) => r.status === 200).length,
    };
  }

  /** Resolves once `condition()` holds, re-checked on every request, response and closed connection. */
  waitFor(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!condition()) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  // ---- serving -----------------------------------------------------------------------------

  private changed(): void {
    for (const check of [...this.waiters]) check();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const rec: RecordedRequest = {
      method: req.method ?? 'GET', path: url.pathname, search: url.search.slice(1), query, headers: req.headers,
      kind: requestKind(url.pathname === this.prefix + RECORD_PATH, query), patient: query.patient ?? null, page: null, status: null, abandoned: false,
    };
    if (rec.kind === 'ledger') rec.page = pageOf(query);
    this.requests.push(rec);
    res.on('close', () => {
      if (!res.writableFinished) rec.abandoned = true;
      this.changed();
    });
    const fault = this.takeFault(rec);
    this.changed();
    const answer = (): void => this.answer(req, res, rec, fault);
    if (!fault?.delayMs) return answer();
    const timer = setTimeout(() => {
      this.delays.delete(timer);
      answer();
    }, fault.delayMs);
    this.delays.add(timer);
  }

  private takeFault(rec: RecordedRequest): FaultScript | undefined {
    const i = this.faults.findIndex((f) => matches(f, rec));
    if (i < 0) return undefined;
    const fault = this.faults[i];
    if (fault.times !== undefined && --fault.times <= 0) this.faults.splice(i, 1);
    return fault;
  }

  private answer(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, fault: FaultScript | undefined): void {
    if (res.destroyed) return;
    if (fault?.socket === 'destroy') return void req.socket.destroy();
    if (fault?.socket === 'hang') return; // until the client leaves or stop() cuts the connection
    const extra = fault?.headers ?? {};
    if (fault?.status !== undefined) return this.send(res, rec, fault.status, fault.body ?? { error: `scripted HTTP ${fault.status}` }, extra);
    const refusal = this.refusal(req, rec);
    if (refusal) return this.send(res, rec, refusal.status, refusal.body, { ...refusal.headers, ...extra });
    const chart = rec.patient === null ? undefined : this.charts.get(rec.patient);
    if (rec.kind === 'ledger' && rec.page === 0 && chart && ifNoneMatchHits(req.headers['if-none-match'], chart.etag)) {
      return this.send(res, rec, 304, null, { etag: chart.etag, ...extra });
    }
    const env = this.envelope(rec);
    if (rec.kind === 'ledger') this.fireTriggers(rec);
    for (const field of fault?.omit ?? []) {
      if (field === 'etag') env.etag = null;
      else delete env.body[field];
    }
    const body = fault?.transform ? fault.transform(env.body, rec) : env.body;
    const headers: Record<string, string> = { ...(env.etag ? { etag: env.etag } : {}), ...extra };
    if (fault?.malformedJson) return this.send(res, rec, 200, JSON.stringify(body).slice(0, -2), headers);
    if (fault?.socket === 'destroy_mid_body') return this.sendThenDrop(res, rec, JSON.stringify(body), headers);
    this.send(res, rec, 200, body, headers);
  }

  /** Auth, then parameter validation, then the patient check (clients.md §4: before touching the index). */
  private refusal(req: IncomingMessage, rec: RecordedRequest): { status: number; body: unknown; headers?: Record<string, string> } | null {
    if (rec.path !== this.prefix + RECORD_PATH) return { status: 404, body: { error: `No resource at ${rec.path}` } };
    if (rec.method !== 'GET') return { status: 405, body: { error: `${rec.method} is not supported` } };
    if (!this.authorized(req.headers.authorization)) {
      return {
        status: 401,
        body: { error: { message: 'User is not logged in', code: 'org.openmrs.module.webservices.rest.web.RestUtil:' } },
        headers: { 'www-authenticate': 'Basic realm="OpenMRS at /openmrs"' },
      };
    }
    const { limit, startIndex, patient, q } = rec.query;
    if (limit !== undefined && !(isInteger(limit) && Number(limit) > 0)) return { status: 400, body: { error: `limit must be > 0, got '${limit}'` } };
    if (startIndex !== undefined && !(isInteger(startIndex) && Number(startIndex) >= 0)) {
      return { status: 400, body: { error: `startIndex must be >= 0, got '${startIndex}'` } };
    }
    if (patient === undefined && q === undefined) return { status: 400, body: { error: 'Either patient or q is required' } };
    if (rec.kind === 'slice' && patient === undefined) return { status: 400, body: { error: 'mode=context needs a patient' } };
    const temporal = rec.query.temporal;
    if (temporal !== undefined && temporal !== 'true' && temporal !== 'false') return { status: 400, body: { error: `temporal must be true or false, got '${temporal}'` } };
    if (patient !== undefined && !this.charts.has(patient)) return { status: 404, body: { error: `No patient with uuid ${patient}` } };
    return null;
  }

  private authorized(header: string | undefined): boolean {
    if (!header?.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && decoded.slice(0, colon) === this.username && decoded.slice(colon + 1) === this.password;
  }

  private envelope(rec: RecordedRequest): Envelope {
    const limit = rec.query.limit === undefined ? DEFAULT_LIMIT : Number(rec.query.limit);
    const start = rec.query.startIndex === undefined ? 0 : Number(rec.query.startIndex);
    const patient = rec.patient;
    if (rec.kind === 'ledger' && patient !== null) {
      const chart = this.charts.get(patient) as Chart;
      const results = chart.records.slice(start, start + limit);
      const body = { results, totalCount: chart.records.length, links: this.links(rec, start, limit, results.length), snapshotId: chart.snapshotId };
      return { body, etag: start === 0 ? chart.etag : null };
    }
    const rows = rec.kind === 'slice' ? this.sliceRows(patient as string) : this.rankedHits(patient, rec.query.q ?? '');
    const window = rows.slice(start, start + limit);
    const results = rec.kind === 'slice' ? window : window.map((r, i) => ({ rank: start + i + 1, ...r }));
    return { body: { results, totalCount: null, links: this.links(rec, start, limit, window.length) }, etag: null };
  }

  private links(rec: RecordedRequest, start: number, limit: number, size: number): Array<{ rel: string; uri: string }> {
    const at = (s: number): string => {
      const params = new URLSearchParams(rec.query);
      params.set('startIndex', String(s));
      params.set('limit', String(limit));
      return `${this.prefix}${RECORD_PATH}?${params.toString()}`;
    };
    const links: Array<{ rel: string; uri: string }> = [];
    if (start > 0) links.push({ rel: 'prev', uri: at(Math.max(0, start - limit)) });
    if (size === limit) links.push({ rel: 'next', uri: at(start + limit) });
    return links;
  }

  private sliceRows(patient: string): WireRecord[] {
    const scripted = this.slices.get(patient);
    if (scripted) return scripted;
    return (this.charts.get(patient) as Chart).records.map((r) => ({
      ...r, tier: MANDATORY_TYPES.has(String((r as { resourceType?: unknown }).resourceType)) ? 'mandatory' : 'similarity',
    }));
  }

  /** Scripted hits, else records sharing the most distinct query terms (ties keep chart order). */
  private rankedHits(patient: string | null, q: string): WireRecord[] {
    const scripted = patient === null ? undefined : this.ranked.get(patient);
    if (scripted) return scripted;
    const pool = patient === null ? [...this.charts.values()].flatMap((c) => c.records) : (this.charts.get(patient) as Chart).records;
    const terms = new Set(words(q));
    return pool
      .map((r, i) => ({ r, i, score: words(String((r as { text?: unknown }).text ?? '')).filter((w, j, all) => terms.has(w) && all.indexOf(w) === j).length }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((x) => x.r);
  }

  private fireTriggers(rec: RecordedRequest): void {
    for (const t of this.triggers) {
      if (t.times <= 0 || t.patient !== rec.patient || t.page !== rec.page) continue;
      t.times--;
      const replaced = (this.charts.get(t.patient) as Chart).records;
      this.setChart(t.patient, t.records);
      t.records = replaced;
    }
  }

  private send(res: ServerResponse, rec: RecordedRequest, status: number, body: unknown, headers: Record<string, string>): void {
    rec.status = status;
    if (status === 304) {
      res.writeHead(304, headers).end();
      return;
    }
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
  }

  /** Announces the full length, sends half, then cuts the connection. */
  private sendThenDrop(res: ServerResponse, rec: RecordedRequest, text: string, headers: Record<string, string>): void {
    rec.status = 200;
    const bytes = Buffer.from(text, 'utf8');
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8', 'content-length': bytes.length, ...headers });
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
  }
}

function requestKind(onPath: boolean, query: Record<string, string>): RequestKind {
  if (!onPath) return 'other';
  if (query.mode === 'context') return 'slice';
  if (query.q !== undefined) return query.patient === undefined ? 'search' : 'ranked';
  return query.patient === undefined ? 'other' : 'ledger';
}

function pageOf(query: Record<string, string>): number | null {
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  const start = query.startIndex === undefined ? 0 : Number(query.startIndex);
  return Number.isInteger(limit) && limit > 0 && Number.isInteger(start) && start >= 0 ? Math.floor(start / limit) : null;
}

function matches(f: FaultScript, rec: RecordedRequest): boolean {
  const m = f.match ?? {};
  if (f.times !== undefined && f.times <= 0) return false;
  if (m.kind !== undefined && m.kind !== rec.kind) return false;
  if (m.patient !== undefined && m.patient !== rec.patient) return false;
  if (m.page !== undefined && m.page !== rec.page) return false;
  return !m.test || m.test(rec);
}

function isInteger(s: string): boolean {
  return s.trim() !== '' && Number.isInteger(Number(s));
}

/** If-None-Match list (or `*`) against the current ETag, compared weakly as RFC 9110 §13.1.2 asks for GET. */
function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (t: string): string => (t.startsWith('W/') ? t.slice(2) : t);
  return header.split(',').some((t) => t.trim() === '*' || opaque(t.trim()) === opaque(etag));
}

function words(s: string): string[] {
  return s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1);
}

// ---- realistic records -----------------------------------------------------------------------

export interface QsRecordInput {
  resourceType?: string;
  uuid?: string;
  date?: string | null;
  clinicalDate?: string | null;
  dateKind?: 'clinical_event' | 'administrative' | 'unknown' | null;
  text?: string;
  metadata?: Record<string, unknown>;
  lastModified?: string | null;
}

/** One record in QueryStore's wire shape; defaults make a dated clinical obs. */
export function qsRecord(input: QsRecordInput = {}): Record<string, unknown> {
  const date = input.date === undefined ? '2026-01-15' : input.date;
  return {
    resourceType: input.resourceType ?? 'obs',
    resourceUuid: input.uuid ?? uuidFrom('qsRecord', JSON.stringify(input)),
    date,
    clinicalDate: input.clinicalDate === undefined ? date : input.clinicalDate,
    dateKind: input.dateKind === undefined ? 'clinical_event' : input.dateKind,
    text: input.text ?? 'Weight (kg): 70 kg',
    metadata: input.metadata ?? { concept_name: 'Weight (kg)', value_numeric: 70, units: 'kg' },
    lastModified: input.lastModified === undefined ? (date === null ? null : `${date}T09:30:00.000+0000`) : input.lastModified,
  };
}

/** A deterministic UUID-shaped id from a seed and an index (distinct seeds give distinct charts). */
export function uuidFrom(seed: string, index: number | string): string {
  const h = createHash('sha1').update(`${seed}:${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const DRUGS = ['Nevirapine 200 mg', 'Lamivudine 150 mg', 'Lisinopril 10 mg', 'Metformin 500 mg', 'Cotrimoxazole 960 mg'];
const CONDITIONS = ['Hypertension', 'Type 2 diabetes mellitus', 'HIV disease', 'Asthma'];

/**
 * An `n`-record chart, newest first, three records a day back from `latest` (default 2026-03-01): vitals obs groups
 * (weight, height and systolic BP sharing `obs_group_uuid`/`obs_group_concept_name` "Vitals"), CD4 obs, drug orders,
 * encounters, conditions, one penicillin allergy (at index 17 when n > 17) and the `patient` record last.
 */
export function qsChart(n: number, opts: { seed?: string; latest?: string } = {}): Record<string, unknown>[] {
  const seed = opts.seed ?? 'chart';
  const latest = Date.parse(`${opts.latest ?? '2026-03-01'}T00:00:00Z`);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const date = new Date(latest - Math.floor(i / 3) * 86_400_000).toISOString().slice(0, 10);
    const uuid = uuidFrom(seed, i);
    const base = { uuid, date };
    if (i === n - 1) out.push(qsRecord({ ...base, resourceType: 'patient', dateKind: 'administrative', clinicalDate: null, text: `Patient: Test Patient ${seed}. Female. Born 1998-05-30.`, metadata: { gender: 'F', birthdate: '1998-05-30' } }));
    else if (i === 17) out.push(qsRecord({ ...base, resourceType: 'allergy', text: 'Allergy: Penicillin. Reaction: rash. Severity: moderate', metadata: { allergen: 'Penicillin', severity: 'moderate' } }));
    else out.push(qsRecord({ ...base, ...chartEntry(i, seed) }));
  }
  return out;
}

function chartEntry(i: number, seed: string): QsRecordInput {
  const group = { obs_group_uuid: uuidFrom(`${seed}:group`, Math.floor(i / 3)), obs_group_concept_name: 'Vitals' };
  switch (i % 9) {
    case 0: return { text: `Weight (kg): ${55 + (i % 30)} kg`, metadata: { concept_name: 'Weight (kg)', value_numeric: 55 + (i % 30), units: 'kg', ...group } };
    case 1: return { text: `Height (cm): ${160 + (i % 7)}.0 cm`, metadata: { concept_name: 'Height (cm)', value_numeric: 160 + (i % 7), units: 'cm', ...group } };
    case 2: return { text: `Systolic blood pressure: ${110 + (i % 40)} mmHg`, metadata: { concept_name: 'Systolic blood pressure', value_numeric: 110 + (i % 40), units: 'mmHg', ...group } };
    case 3: {
      const drug = DRUGS[i % DRUGS.length];
      return { resourceType: 'drug_order', text: `Drug order: ${drug}. Action: NEW. Urgency: ROUTINE`, metadata: { drug_name: drug, action: 'NEW', urgency: 'ROUTINE' } };
    }
    case 4: return { resourceType: 'encounter', text: `Encounter: Adult Visit at Clinic ${String.fromCharCode(65 + (i % 5))}`, metadata: { encounter_type: 'Adult Visit' } };
    case 5: return { text: `CD4 count: ${300 + (i % 200)} cells/mm3`, metadata: { concept_name: 'CD4 count', value_numeric: 300 + (i % 200), units: 'cells/mm3' } };
    case 6: {
      const condition = CONDITIONS[i % CONDITIONS.length];
      return { resourceType: 'condition', text: `Condition: ${condition}. Status: ACTIVE`, metadata: { condition_name: condition, clinical_status: 'ACTIVE' } };
    }
    case 7: return { resourceType: 'encounter', dateKind: 'administrative', clinicalDate: null, text: 'Encounter: Registration', metadata: { encounter_type: 'Registration' } };
    default: return { text: `Return visit date: 2026-0${1 + (i % 9)}-1${i % 10}`, metadata: { concept_name: 'Return visit date' } };
  }
}
