/** The QueryStore patient ledger cache (hub-contract §5.4 "Patient ledger cache", §12 "Querystore client / cache"). */
import { PatientLedgerCache } from '../../../../server/context/sources/querystore/cache';
import type { LedgerFetch, LedgerKey } from '../../../../server/context/sources/querystore/cache';
import { QuerystoreError } from '../../../../server/context/sources/querystore/types';
import type { AcquiredLedger, LedgerFetchResult } from '../../../../server/context/sources/querystore/types';

const IDENTITY = 'https://qs.example.org/openmrs|med-agent-hub';
const PATIENT = 'patient-7f3a9c';
const KEY: LedgerKey = { identity: IDENTITY, patient: PATIENT };

const ledger = (etag: string, bytes = 100): AcquiredLedger => ({
  records: [{ resourceType: 'obs', resourceUuid: `uuid-${etag}`, date: '2026-01-01', text: `Weight of ${PATIENT}: 70 kg`, metadata: {} }],
  etag,
  snapshotId: `snap-${etag}`,
  pages: 1,
  bytes,
});
const fresh = (etag: string, bytes?: number): LedgerFetchResult => ({ kind: 'ledger', ledger: ledger(etag, bytes) });
const NOT_MODIFIED: LedgerFetchResult = { kind: 'not_modified' };
const inconsistent = (): QuerystoreError => new QuerystoreError('inconsistent_snapshot', 'pages disagreed on snapshotId');

type Answer = LedgerFetchResult | Error;

/** A fetch that answers from a script, one answer per call, and records the validator each call sent. */
function scripted(...answers: Answer[]): LedgerFetch & { etags: (string | undefined)[]; answers: Answer[] } {
  const etags: (string | undefined)[] = [];
  const fetch = async (etag: string | undefined): Promise<LedgerFetchResult> => {
    etags.push(etag);
    const answer = answers.shift();
    if (answer === undefined) throw new Error('fake fetch: script exhausted');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return Object.assign(fetch, { etags, answers });
}

interface Deferred<T> { promise: Promise<T>; resolve(value: T): void; reject(err: unknown): void }
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A fetch whose every call stays pending until the test settles it. */
function controlled(): LedgerFetch & { calls: { etag: string | undefined; signal: AbortSignal; reply: Deferred<LedgerFetchResult> }[] } {
  const calls: { etag: string | undefined; signal: AbortSignal; reply: Deferred<LedgerFetchResult> }[] = [];
  const fetch = (etag: string | undefined, signal: AbortSignal): Promise<LedgerFetchResult> => {
    const reply = deferred<LedgerFetchResult>();
    calls.push({ etag, signal, reply });
    return reply.promise;
  };
  return Object.assign(fetch, { calls });
}

/** Lets pending promise callbacks run (bounded by a count of microtask turns, not by time). */
async function drain(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i += 1) await Promise.resolve();
}

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (err: unknown) => err);

describe('PatientLedgerCache bounds', () => {
  test.each<[string, { maxEntries?: number; maxBytes?: number }, RegExp]>([
    ['maxEntries 0', { maxEntries: 0, maxBytes: 1000 }, /maxEntries must be a positive integer/],
    ['maxEntries negative', { maxEntries: -1, maxBytes: 1000 }, /maxEntries must be a positive integer/],
    ['maxEntries fractional', { maxEntries: 1.5, maxBytes: 1000 }, /maxEntries must be a positive integer/],
    ['maxEntries NaN', { maxEntries: Number.NaN, maxBytes: 1000 }, /maxEntries must be a positive integer/],
    ['maxBytes 0', { maxEntries: 32, maxBytes: 0 }, /maxBytes must be a positive integer/],
    ['maxBytes negative', { maxEntries: 32, maxBytes: -5 }, /maxBytes must be a positive integer/],
    ['maxBytes infinite', { maxEntries: 32, maxBytes: Number.POSITIVE_INFINITY }, /maxBytes must be a positive integer/],
  ])('%s is rejected', (_name, opts, message) => {
    expect(() => new PatientLedgerCache(opts)).toThrow(message);
  });

  test('defaults and explicit valid bounds are accepted', () => {
    expect(new PatientLedgerCache().stats()).toMatchObject({ entries: 0, bytes: 0 });
    expect(new PatientLedgerCache({ maxEntries: 1, maxBytes: 1 }).stats().entries).toBe(0);
  });
});

describe('PatientLedgerCache revalidation', () => {
  test.each<[string, Answer[], { etag: string | undefined; outcome: string; acquisitions: number; served: string }[]]>([
    ['cold key sends no validator', [fresh('e1')], [{ etag: undefined, outcome: 'miss', acquisitions: 1, served: 'e1' }]],
    ['304 reuses the cached ledger', [fresh('e1'), NOT_MODIFIED], [
      { etag: undefined, outcome: 'miss', acquisitions: 1, served: 'e1' },
      { etag: 'e1', outcome: 'not_modified', acquisitions: 0, served: 'e1' },
    ]],
    ['every call revalidates with the stored ETag', [fresh('e1'), NOT_MODIFIED, NOT_MODIFIED, NOT_MODIFIED], [
      { etag: undefined, outcome: 'miss', acquisitions: 1, served: 'e1' },
      { etag: 'e1', outcome: 'not_modified', acquisitions: 0, served: 'e1' },
      { etag: 'e1', outcome: 'not_modified', acquisitions: 0, served: 'e1' },
      { etag: 'e1', outcome: 'not_modified', acquisitions: 0, served: 'e1' },
    ]],
    ['a changed chart replaces the entry and its ETag', [fresh('e1'), fresh('e2'), NOT_MODIFIED], [
      { etag: undefined, outcome: 'miss', acquisitions: 1, served: 'e1' },
      { etag: 'e1', outcome: 'refreshed', acquisitions: 1, served: 'e2' },
      { etag: 'e2', outcome: 'not_modified', acquisitions: 0, served: 'e2' },
    ]],
    ['an inconsistent snapshot is retried once (cold)', [inconsistent(), fresh('e1')], [
      { etag: undefined, outcome: 'miss', acquisitions: 2, served: 'e1' },
    ]],
    ['an inconsistent snapshot is retried once with the same validator (warm)', [fresh('e1'), inconsistent(), fresh('e2')], [
      { etag: undefined, outcome: 'miss', acquisitions: 1, served: 'e1' },
      { etag: 'e1', outcome: 'refreshed', acquisitions: 2, served: 'e2' },
    ]],
  ])('%s', async (_name, answers, expected) => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = scripted(...answers);
    const sent: (string | undefined)[] = [];
    for (const want of expected) {
      const before = fetch.etags.length;
      const got = await cache.get(KEY, fetch);
      sent.push(fetch.etags[before]);
      expect({ outcome: got.outcome, acquisitions: got.acquisitions, served: got.ledger.etag }).toEqual({ outcome: want.outcome, acquisitions: want.acquisitions, served: want.served });
    }
    expect(sent).toEqual(expected.map((want) => want.etag));
    expect(fetch.answers).toHaveLength(0);
  });

  test('a 304 returns the very ledger that was stored', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const first = await cache.get(KEY, scripted(fresh('e1')));
    const second = await cache.get(KEY, scripted(NOT_MODIFIED));
    expect(second.ledger).toBe(first.ledger);
    expect(cache.stats()).toMatchObject({ misses: 1, not_modified: 1, refreshed: 0, entries: 1, bytes: 100 });
  });

  test('keys are isolated by identity and by patient', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 8, maxBytes: 10_000 });
    const keys: [LedgerKey, string][] = [
      [{ identity: 'https://a|svc', patient: 'p1' }, 'a-p1'],
      [{ identity: 'https://b|svc', patient: 'p1' }, 'b-p1'],
      [{ identity: 'https://a|svc', patient: 'p2' }, 'a-p2'],
      [{ identity: 'https://a|other', patient: 'p1' }, 'a-other-p1'],
      // The separator keeps ("ab", "c") and ("a", "bc") apart.
      [{ identity: 'ab', patient: 'c' }, 'ab-c'],
      [{ identity: 'a', patient: 'bc' }, 'a-bc'],
    ];
    for (const [key, etag] of keys) {
      const fetch = scripted(fresh(etag));
      expect((await cache.get(key, fetch)).ledger.etag).toBe(etag);
      expect(fetch.etags).toEqual([undefined]);
    }
    for (const [key, etag] of keys) {
      const fetch = scripted(NOT_MODIFIED);
      expect((await cache.get(key, fetch)).ledger.etag).toBe(etag);
      expect(fetch.etags).toEqual([etag]);
    }
    expect(cache.stats().entries).toBe(keys.length);
  });

  test('a 304 on a cold key is a contract error and stores nothing', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const err = await rejection(cache.get(KEY, scripted(NOT_MODIFIED)));
    expect(err).toBeInstanceOf(QuerystoreError);
    expect((err as QuerystoreError).kind).toBe('contract');
    expect(cache.stats()).toMatchObject({ entries: 0, failures: 1, misses: 0 });
  });

  test.each<[string, boolean]>([['cold', false], ['warm', true]])('a second inconsistent snapshot propagates (%s)', async (_name, warm) => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    if (warm) await cache.get(KEY, scripted(fresh('e1')));
    const fetch = scripted(inconsistent(), inconsistent());
    const err = await rejection(cache.get(KEY, fetch));
    expect((err as QuerystoreError).kind).toBe('inconsistent_snapshot');
    expect(fetch.etags).toEqual(warm ? ['e1', 'e1'] : [undefined, undefined]);
  });
});

describe('PatientLedgerCache failures never serve the stale copy', () => {
  // `kept`: the entry survives the failure, so the next call still revalidates with its ETag (a copy is reused
  // only on a 304); otherwise the entry is evicted and the next call is cold.
  test.each<[string, Error, boolean]>([
    ['transport', new QuerystoreError('transport', 'ECONNRESET'), true],
    ['http 503', new QuerystoreError('http', 'unavailable', 503), true],
    ['http 429', new QuerystoreError('http', 'slow down', 429), true],
    ['inconsistent snapshot twice', inconsistent(), true],
    ['aborted', new QuerystoreError('aborted', 'cancelled'), true],
    ['http 401', new QuerystoreError('http', 'unauthorized', 401), false],
    ['http 403', new QuerystoreError('http', 'forbidden', 403), false],
    ['http 404', new QuerystoreError('http', 'unknown patient', 404), false],
    ['contract', new QuerystoreError('contract', 'truncated'), false],
    ['unexpected error', new TypeError('bug'), false],
  ])('%s', async (name, error, kept) => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    await cache.get(KEY, scripted(fresh('e1')));
    const failing = name === 'inconsistent snapshot twice' ? scripted(error, error) : scripted(error);
    await expect(cache.get(KEY, failing)).rejects.toBe(error);
    expect(cache.stats()).toMatchObject({ failures: 1, entries: kept ? 1 : 0, bytes: kept ? 100 : 0 });

    // The next call revalidates again; only a 304 against the kept copy may serve it.
    const next = scripted(kept ? NOT_MODIFIED : fresh('e2'));
    const got = await cache.get(KEY, next);
    expect(next.etags).toEqual([kept ? 'e1' : undefined]);
    expect({ outcome: got.outcome, served: got.ledger.etag }).toEqual(kept ? { outcome: 'not_modified', served: 'e1' } : { outcome: 'miss', served: 'e2' });
  });

  test('a failure after a 304 streak still fails, then the following call revalidates', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = scripted(fresh('e1'), NOT_MODIFIED, new QuerystoreError('transport', 'timeout'), fresh('e2'));
    await cache.get(KEY, fetch);
    await cache.get(KEY, fetch);
    await expect(cache.get(KEY, fetch)).rejects.toMatchObject({ kind: 'transport' });
    expect((await cache.get(KEY, fetch)).ledger.etag).toBe('e2');
    expect(fetch.etags).toEqual([undefined, 'e1', 'e1', 'e1']);
  });
});

describe('PatientLedgerCache LRU bounds', () => {
  const key = (patient: string): LedgerKey => ({ identity: IDENTITY, patient });
  /** Each step: a patient and the ledger QueryStore would acquire; a warm key answers 304 unless `changed`. */
  async function touch(cache: PatientLedgerCache, patient: string, bytes = 100, changed = false): Promise<string | undefined> {
    let sent: string | undefined;
    await cache.get(key(patient), async (etag) => {
      sent = etag;
      return etag !== undefined && !changed ? NOT_MODIFIED : fresh(`${patient}-${bytes}`, bytes);
    });
    return sent;
  }

  test('by entries: the least recently used entry goes first', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 2, maxBytes: 10_000 });
    await touch(cache, 'a');
    await touch(cache, 'b');
    expect(await touch(cache, 'a')).toBe('a-100'); // a is now the most recently used
    await touch(cache, 'c'); // evicts b
    expect(cache.stats()).toMatchObject({ entries: 2, evictions: 1 });
    expect(await touch(cache, 'a')).toBe('a-100');
    expect(await touch(cache, 'c')).toBe('c-100');
    expect(await touch(cache, 'b')).toBeUndefined(); // cold again; evicts a
    expect(await touch(cache, 'a')).toBeUndefined();
  });

  test('by bytes: inserting evicts until the byte bound holds', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 10, maxBytes: 250 });
    await touch(cache, 'a');
    await touch(cache, 'b');
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 200 });
    await touch(cache, 'c'); // 300 > 250: evicts a
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 200, evictions: 1 });
    expect(await touch(cache, 'a')).toBeUndefined(); // cold; evicts b
    expect(await touch(cache, 'c', 150, true)).toBe('c-100'); // c grows to 150: 100 + 150 fits exactly
    expect(cache.stats()).toMatchObject({ entries: 2, bytes: 250, evictions: 2 });
    expect(await touch(cache, 'c', 200, true)).toBe('c-150'); // c grows to 200: 100 + 200 > 250, evicts a
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 200, evictions: 3 });
    expect(await touch(cache, 'c')).toBe('c-200');
  });

  test('a ledger larger than maxBytes is returned but not stored, and drops the older copy', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 10, maxBytes: 100 });
    const big = await cache.get(KEY, scripted(fresh('big', 101)));
    expect({ outcome: big.outcome, served: big.ledger.etag }).toEqual({ outcome: 'miss', served: 'big' });
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, oversized: 1 });

    await cache.get(KEY, scripted(fresh('small', 100)));
    const grown = scripted(fresh('grown', 500));
    expect((await cache.get(KEY, grown)).outcome).toBe('refreshed');
    expect(grown.etags).toEqual(['small']);
    const next = scripted(fresh('again', 50));
    await cache.get(KEY, next);
    expect(next.etags).toEqual([undefined]);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 50, oversized: 2, evictions: 0 });
  });

  test('evicting an entry during its revalidation keeps the single flight', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 1, maxBytes: 10_000 });
    await cache.get(KEY, scripted(fresh('e1')));
    const fetch = controlled();
    const first = cache.get(KEY, fetch);
    await touch(cache, 'other'); // evicts KEY's entry while its revalidation is in flight
    const second = cache.get(KEY, fetch);
    expect(fetch.calls.map((c) => c.etag)).toEqual(['e1']);
    fetch.calls[0].reply.resolve(NOT_MODIFIED);
    const [a, b] = await Promise.all([first, second]);
    expect([a.outcome, b.outcome, a.ledger.etag, b.ledger]).toEqual(['not_modified', 'not_modified', 'e1', a.ledger]);
    // The copy the 304 proved current is back (and evicted the other key).
    expect(cache.stats()).toMatchObject({ entries: 1, evictions: 2, inflight: 0 });
    const again = scripted(NOT_MODIFIED);
    await cache.get(KEY, again);
    expect(again.etags).toEqual(['e1']);
  });
});

describe('PatientLedgerCache single-flight and cancellation', () => {
  test('20 concurrent calls on a cold key share one fetch', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = controlled();
    const calls = Array.from({ length: 20 }, () => cache.get(KEY, fetch));
    await drain();
    expect(fetch.calls).toHaveLength(1);
    expect(fetch.calls[0].etag).toBeUndefined();
    expect(cache.stats().inflight).toBe(1);
    fetch.calls[0].reply.resolve(fresh('e1'));
    const results = await Promise.all(calls);
    expect(new Set(results.map((r) => r.ledger)).size).toBe(1);
    // Every sharer sees the flight's outcome; counters count flights, not callers.
    expect(results.every((r) => r.outcome === 'miss' && r.acquisitions === 1)).toBe(true);
    expect(cache.stats()).toMatchObject({ misses: 1, inflight: 0, entries: 1 });

    // A call after the flight settled starts a new revalidation.
    const later = cache.get(KEY, fetch);
    expect(fetch.calls).toHaveLength(2);
    expect(fetch.calls[1].etag).toBe('e1');
    fetch.calls[1].reply.resolve(NOT_MODIFIED);
    expect((await later).outcome).toBe('not_modified');
  });

  test('concurrent callers share a failure too (nobody gets the stale copy)', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    await cache.get(KEY, scripted(fresh('e1')));
    const fetch = controlled();
    const calls = Array.from({ length: 5 }, () => rejection(cache.get(KEY, fetch)));
    const error = new QuerystoreError('transport', 'ECONNREFUSED');
    fetch.calls[0].reply.reject(error);
    expect((await Promise.all(calls)).every((err) => err === error)).toBe(true);
    expect(fetch.calls).toHaveLength(1);
    expect(cache.stats().failures).toBe(1);
  });

  test('one waiter aborting rejects only that waiter', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = controlled();
    const tabs = [new AbortController(), new AbortController(), new AbortController()];
    const calls = tabs.map((tab) => cache.get(KEY, fetch, { signal: tab.signal }));
    const leaving = rejection(calls[0]);
    tabs[0].abort();
    const err = await leaving;
    expect(err).toBeInstanceOf(QuerystoreError);
    expect((err as QuerystoreError).kind).toBe('aborted');
    expect(fetch.calls[0].signal.aborted).toBe(false);

    fetch.calls[0].reply.resolve(fresh('e1'));
    const rest = await Promise.all(calls.slice(1));
    expect(rest.map((r) => r.ledger.etag)).toEqual(['e1', 'e1']);
    expect(cache.stats()).toMatchObject({ entries: 1, misses: 1 });
  });

  test('a waiter without a signal keeps the shared fetch alive', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = controlled();
    const tab = new AbortController();
    const leaving = rejection(cache.get(KEY, fetch, { signal: tab.signal }));
    const staying = cache.get(KEY, fetch);
    tab.abort();
    expect(((await leaving) as QuerystoreError).kind).toBe('aborted');
    expect(fetch.calls[0].signal.aborted).toBe(false);
    fetch.calls[0].reply.resolve(fresh('e1'));
    expect((await staying).ledger.etag).toBe('e1');
  });

  test('all waiters aborting aborts the shared fetch; its late result is not stored; the next call starts afresh', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = controlled();
    const tabs = [new AbortController(), new AbortController()];
    const calls = tabs.map((tab) => rejection(cache.get(KEY, fetch, { signal: tab.signal })));
    tabs[0].abort();
    expect(fetch.calls[0].signal.aborted).toBe(false);
    tabs[1].abort();
    expect(fetch.calls[0].signal.aborted).toBe(true);
    expect((await Promise.all(calls)).map((err) => (err as QuerystoreError).kind)).toEqual(['aborted', 'aborted']);

    const next = cache.get(KEY, fetch);
    expect(fetch.calls).toHaveLength(2);
    expect(fetch.calls[1].signal.aborted).toBe(false);
    fetch.calls[0].reply.resolve(fresh('late')); // the abandoned fetch ignored its signal
    await drain();
    expect(cache.stats()).toMatchObject({ entries: 0, misses: 0, failures: 0, inflight: 1 });
    fetch.calls[1].reply.resolve(fresh('e2'));
    expect((await next).ledger.etag).toBe('e2');
    expect(cache.stats()).toMatchObject({ entries: 1, misses: 1, inflight: 0 });
  });

  test('an abandoned fetch that rejects is neither counted nor unhandled', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    await cache.get(KEY, scripted(fresh('e1')));
    const fetch = controlled();
    const tab = new AbortController();
    const leaving = rejection(cache.get(KEY, fetch, { signal: tab.signal }));
    tab.abort();
    fetch.calls[0].reply.reject(new QuerystoreError('aborted', 'fetch cancelled'));
    await leaving;
    await drain();
    expect(cache.stats()).toMatchObject({ entries: 1, failures: 0, inflight: 0 });
  });

  test('an already-aborted signal rejects without fetching', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = controlled();
    const tab = new AbortController();
    tab.abort();
    await expect(cache.get(KEY, fetch, { signal: tab.signal })).rejects.toMatchObject({ kind: 'aborted' });
    expect(fetch.calls).toHaveLength(0);
  });

  test('the retry after an inconsistent snapshot is skipped once the shared fetch is aborted', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = controlled();
    const tab = new AbortController();
    const leaving = rejection(cache.get(KEY, fetch, { signal: tab.signal }));
    tab.abort();
    fetch.calls[0].reply.reject(inconsistent());
    await leaving;
    await drain();
    expect(fetch.calls).toHaveLength(1);
  });
});

describe('PatientLedgerCache purge and stats', () => {
  test('purge drops every entry and says how many', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    await cache.get({ identity: IDENTITY, patient: 'p1' }, scripted(fresh('e1')));
    await cache.get({ identity: IDENTITY, patient: 'p2' }, scripted(fresh('e2')));
    expect(cache.purge()).toBe(2);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, purges: 1 });
    const next = scripted(fresh('e1b'));
    await cache.get({ identity: IDENTITY, patient: 'p1' }, next);
    expect(next.etags).toEqual([undefined]);
    expect(cache.purge()).toBe(1);
    expect(cache.purge()).toBe(0);
    expect(cache.stats().purges).toBe(3);
  });

  test('a flight that spans a purge answers its caller but does not store', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    const fetch = controlled();
    const call = cache.get(KEY, fetch);
    cache.purge();
    fetch.calls[0].reply.resolve(fresh('e1'));
    expect((await call).ledger.etag).toBe('e1');
    expect(cache.stats()).toMatchObject({ entries: 0, misses: 1 });
    const next = scripted(fresh('e1'));
    await cache.get(KEY, next);
    expect(next.etags).toEqual([undefined]);
  });

  test('stats are numbers only, with nothing derived from patients, identities, ETags or chart text', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 1, maxBytes: 150 });
    await cache.get(KEY, scripted(fresh('etag-secret')));
    await cache.get(KEY, scripted(NOT_MODIFIED));
    await cache.get({ identity: IDENTITY, patient: 'patient-other' }, scripted(fresh('etag-other')));
    await cache.get(KEY, scripted(fresh('etag-huge', 1000)));
    await rejection(cache.get(KEY, scripted(new QuerystoreError('transport', `cannot reach ${IDENTITY} for ${PATIENT}`))));
    cache.purge();
    const stats = cache.stats();
    expect(Object.keys(stats).sort()).toEqual(['bytes', 'entries', 'evictions', 'failures', 'inflight', 'misses', 'not_modified', 'oversized', 'purges', 'refreshed']);
    expect(Object.values(stats).every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true);
    expect(stats).toEqual({ entries: 0, bytes: 0, misses: 3, not_modified: 1, refreshed: 0, failures: 1, evictions: 1, oversized: 1, inflight: 0, purges: 1 });
    const text = JSON.stringify(stats);
    for (const secret of [PATIENT, 'patient-other', IDENTITY, 'etag', 'Weight']) expect(text).not.toContain(secret);
  });

  test('a ledger without a valid byte size is a contract error', async () => {
    const cache = new PatientLedgerCache({ maxEntries: 4, maxBytes: 10_000 });
    await expect(cache.get(KEY, scripted(fresh('e1', Number.NaN)))).rejects.toMatchObject({ kind: 'contract' });
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });
});
