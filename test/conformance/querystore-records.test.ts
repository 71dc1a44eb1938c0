/**
 * Conformance family `querystore_records` (clients.md §4, hub-contract §5.4): QueryStore records through
 * the hub's serializer (rendered date, date-kind marker, carried fields, reference text, temporal
 * treatment), and the snapshot cases through the real HTTP client and patient ledger cache against the
 * fake QueryStore. Each case's adapter supplies what the fixture leaves implicit (the record text and
 * the line it must render as); cases are iterated by id, so a new fixture case without an adapter fails.
 */
import * as fs from 'fs';
import * as path from 'path';
import { latestRecordDate } from '../../server/checks/temporal/anchor';
import { buildTemporalFacts } from '../../server/checks/temporal/facts';
import { parseEvents } from '../../server/checks/temporal/parse';
import { renderLedger } from '../../server/context/render';
import { PatientLedgerCache } from '../../server/context/sources/querystore/cache';
import { createQuerystoreClient } from '../../server/context/sources/querystore/client';
import { toLedger } from '../../server/context/sources/querystore/serialize';
import { QuerystoreError, type QuerystoreApi, type QuerystoreRecord } from '../../server/context/sources/querystore/types';
import { resolveReferences } from '../../server/engine/references';
import { FakeQuerystore, qsChart } from '../support/fake-querystore';

const FIXTURE = path.resolve(__dirname, '../../../shared/conformance/dual-provider-conformance.v1.json');

interface RecordCase {
  id: string;
  resource_type: string;
  date: string | null;
  clinical_date: string | null;
  date_kind: QuerystoreRecord['dateKind'];
  last_modified: string | null;
}
interface SnapshotCase {
  id: string;
  snapshot_ids: string[];
  expected: 'accept' | 'reject_after_one_retry';
}
type Case = RecordCase | SnapshotCase;

interface RecordAdapter {
  kind: 'record';
  text: string;
  /** The chart line the record renders as at index 1. */
  line: string;
  /** What references and grounding read: the text without the marker. */
  sourceText: string;
  /** Whether temporal facts treat the record's date as clinical. */
  clinical: boolean;
}
interface SnapshotAdapter {
  kind: 'snapshot';
}

const ADAPTERS: Record<string, RecordAdapter | SnapshotAdapter> = {
  'querystore.record.obs-clinical-date': {
    kind: 'record', text: 'Finding — Weight (kg): 70.0 kg', line: '[1] (2026-01-15) Finding — Weight (kg): 70 kg',
    sourceText: 'Finding — Weight (kg): 70 kg', clinical: true,
  },
  'querystore.record.patient-administrative-date': {
    kind: 'record', text: 'Patient: Jane Doe. Female. Born 1985-03-02', line: '[1] (2026-01-15) Patient: Jane Doe. Female. Born 1985-03-02 [administrative]',
    sourceText: 'Patient: Jane Doe. Female. Born 1985-03-02', clinical: false,
  },
  'querystore.snapshot.all-pages-agree': { kind: 'snapshot' },
  'querystore.snapshot.mixed-pages-rejected': { kind: 'snapshot' },
};

/** An older clinical record after the case record, so the anchor shows whether the case date counts. */
const PROBE: QuerystoreRecord = {
  resourceType: 'encounter', resourceUuid: 'probe-1', date: '2026-01-10', clinicalDate: '2026-01-10', dateKind: 'clinical_event',
  text: 'Encounter: Outpatient consultation', metadata: {}, lastModified: '2026-01-10T09:00:00Z',
};

const cases: Case[] = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')).querystore_records;
const isRecordCase = (c: Case): c is RecordCase => 'resource_type' in c;
const recordCases = cases.filter(isRecordCase);
const snapshotCases = cases.filter((c): c is SnapshotCase => !isRecordCase(c));

function adapterOf<K extends 'record' | 'snapshot'>(id: string, kind: K): Extract<RecordAdapter | SnapshotAdapter, { kind: K }> {
  const adapter = ADAPTERS[id];
  if (!adapter) throw new Error(`no adapter for querystore_records case ${id}: add one to ADAPTERS`);
  expect(adapter.kind).toBe(kind);
  return adapter as Extract<RecordAdapter | SnapshotAdapter, { kind: K }>;
}

test('every case has an adapter and every adapter a case', () => {
  expect(recordCases.length).toBeGreaterThan(0);
  expect(snapshotCases.length).toBeGreaterThan(0);
  expect(cases.map((c) => c.id).sort()).toEqual(Object.keys(ADAPTERS).sort());
});

describe.each(recordCases.map((c) => [c.id, c] as const))('%s', (id, c) => {
  const adapter = adapterOf(id, 'record');
  const record: QuerystoreRecord = {
    resourceType: c.resource_type, resourceUuid: `${c.resource_type}-1`, date: c.date, clinicalDate: c.clinical_date, dateKind: c.date_kind,
    text: adapter.text, metadata: {}, lastModified: c.last_modified,
  };
  const ledger = toLedger([record, PROBE]);
  const [evidence] = ledger.records;
  const shownDate = c.clinical_date ?? c.date;

  test('evidence record carries the QueryStore fields', () => {
    expect(evidence).toMatchObject({
      stableId: `querystore:${c.resource_type}:${c.resource_type}-1`, source: 'querystore', sourcePriority: 50,
      resourceType: c.resource_type, resourceUuid: `${c.resource_type}-1`,
      date: c.date, clinicalDate: c.clinical_date, dateKind: c.date_kind, text: adapter.sourceText, raw: record,
    });
  });

  test('rendered date and marker', () => {
    expect(renderLedger(ledger).split('\n')[0]).toBe(adapter.line);
    expect(adapter.line.startsWith(`[1] (${shownDate}) `)).toBe(true);
    expect(adapter.line.endsWith(' [administrative]') || adapter.line.endsWith(' [unknown]')).toBe(!adapter.clinical);
  });

  test('references read the text without the marker', () => {
    const [ref] = resolveReferences(new Map([[1, []]]), ledger, 'unchecked');
    expect(ref).toMatchObject({ sourceId: evidence.stableId, resourceType: c.resource_type, date: c.date, sourceText: adapter.sourceText });
  });

  test(`temporal facts treat the date as ${adapter.clinical ? 'clinical' : 'non-clinical'}`, () => {
    const chart = renderLedger(ledger);
    const events = parseEvents(chart);
    expect(events[0]).toMatchObject({ index: 1, date: shownDate, administrative: !adapter.clinical, body: adapter.sourceText });
    expect(latestRecordDate(events, chart)).toBe(adapter.clinical ? shownDate : PROBE.clinicalDate);
    const facts = buildTemporalFacts(chart, { referenceDate: '2026-02-01', anchorMode: 'explicit', events });
    expect(facts.clinical_dates.some((d) => d.indices.includes(1))).toBe(adapter.clinical);
    expect(facts.admin_dates.some((d) => d.indices.includes(1))).toBe(!adapter.clinical);
    // Either way the date is one the model may quote.
    expect(facts.date_ledger.map((d) => d.iso)).toContain(shownDate);
  });
});

describe('snapshot cases (real client and cache, fake QueryStore)', () => {
  const P = 'patient-conformance';
  const PASSWORD = 'hub-secret';
  let fake: FakeQuerystore;
  let api: QuerystoreApi;

  beforeAll(async () => {
    fake = new FakeQuerystore({ password: PASSWORD });
    const baseUrl = await fake.start();
    api = createQuerystoreClient({ baseUrl, username: 'med-agent-hub', password: PASSWORD, connectTimeoutMs: 5000, idleTimeoutMs: 10_000, requestTimeoutMs: 15_000 });
  });
  afterAll(async () => {
    await api.close();
    await fake.stop();
  });

  test.each(snapshotCases.map((c) => [c.id, c] as const))('%s', async (id, c) => {
    adapterOf(id, 'snapshot');
    fake.reset();
    // One page of 500 per listed snapshot id; every page answers with the fixture's id for its position.
    const records = qsChart(500 * (c.snapshot_ids.length - 1) + 7, { seed: id });
    fake.setChart(P, records);
    fake.fault({ match: { kind: 'ledger', patient: P }, transform: (env, req) => ({ ...env, snapshotId: c.snapshot_ids[req.page ?? 0] }) });
    const cache = new PatientLedgerCache();
    const got = cache.get({ identity: api.identity, patient: P }, (etag, signal) => api.fetchLedger(P, { etag, signal }));
    const pages = c.snapshot_ids.length;

    if (c.expected === 'accept') {
      const result = await got;
      expect(result.outcome).toBe('miss');
      expect(result.acquisitions).toBe(1);
      expect(result.ledger).toMatchObject({ snapshotId: c.snapshot_ids[0], pages });
      expect(result.ledger.records.map((r) => r.resourceUuid)).toEqual(records.map((r) => r.resourceUuid));
      expect(fake.counts(P)).toMatchObject({ acquisitions: 1, ledgerPages: pages });
      return;
    }
    expect(c.expected).toBe('reject_after_one_retry');
    const err = await got.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(QuerystoreError);
    expect((err as QuerystoreError).kind).toBe('inconsistent_snapshot');
    // The first acquisition and exactly one retry, each stopped at the first disagreeing page.
    const firstBad = c.snapshot_ids.findIndex((s) => s !== c.snapshot_ids[0]);
    expect(fake.counts(P)).toMatchObject({ acquisitions: 2, ledgerPages: 2 * (firstBad + 1) });
    // Never served stale: nothing was stored, so the next turn acquires again.
    expect(cache.stats().entries).toBe(0);
  });
});
