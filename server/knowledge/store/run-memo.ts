/**
 * A read memo for one pipeline run, over any engine driver. One `/v2/context` run asks for the same rows
 * several times: the R1, R2, safety and conflict walks start from overlapping seeds, they fetch overlapping
 * MKUs, and the hub's licence lookup repeats the enrichment join. The memo answers the repeats from memory.
 * It lives for one run only (the patient context is in the request): it never outlives the request.
 *
 * Rows are the driver's own rows; only their order may differ, and no reader depends on it (reads.ts
 * aggregates and sorts everything it returns).
 */
import type { ProvenanceRow, StoreDriver, TriggerRow } from './driver';
import type { Mku } from './port';

/** A memo entry nobody awaits must not surface as an unhandled rejection; awaiting it still throws. */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/**
 * `walkDepth`: trigger walks fetch at least this deep, so the shallower walks of the same run (R1 at 0 hops,
 * R2 at its depth) are cut from one deeper walk per seed instead of each asking the engine again.
 */
export function memoizeForRun(driver: StoreDriver, walkDepth: number): StoreDriver {
  const walks = new Map<string, { depth: number; rows: Promise<TriggerRow[]> }>();
  const mkus = new Map<string, Promise<Mku | undefined>>();
  const provenance = new Map<string, Promise<ProvenanceRow[]>>();
  const forget = () => {
    walks.clear();
    mkus.clear();
    provenance.clear();
  };

  return {
    ...bindAll(driver),

    // A seed's walk to depth D holds its walk to any d ≤ D: the rows with hops ≤ d (hops is the shortest
    // distance from that seed, and each seed is walked on its own).
    async triggerRows(seeds, depth) {
      const missing = seeds.filter((s) => (walks.get(s)?.depth ?? -1) < depth);
      if (missing.length) {
        const d = Math.max(depth, walkDepth);
        const all = driver.triggerRows(missing, d);
        for (const seed of missing) walks.set(seed, { depth: d, rows: settled(all.then((rows) => rows.filter((r) => r.seed === seed))) });
      }
      const perSeed = await Promise.all(seeds.map((s) => walks.get(s)!.rows));
      return perSeed.flat().filter((r) => r.hops <= depth);
    },

    async mkus(ids) {
      const missing = ids.filter((id) => !mkus.has(id));
      if (missing.length) {
        const byId = driver.mkus(missing).then((rows) => new Map(rows.map((m) => [m.id, m])));
        for (const id of missing) mkus.set(id, settled(byId.then((m) => m.get(id))));
      }
      // Each known id once, as the engine's `IN (…)` answers.
      const found = await Promise.all([...new Set(ids)].map((id) => mkus.get(id)!));
      return found.filter((m): m is Mku => m !== undefined);
    },

    provenanceRows(mkuIds) {
      const key = JSON.stringify(mkuIds);
      let rows = provenance.get(key);
      if (!rows) {
        rows = settled(driver.provenanceRows(mkuIds));
        provenance.set(key, rows);
      }
      return rows;
    },

    async write(batch) {
      forget();
      return driver.write(batch);
    },
    async pruneMkus(docId, keep) {
      forget();
      return driver.pruneMkus(docId, keep);
    },
    // The connection is shared with every other request: a run view only drops its memo.
    async close() {
      forget();
    },
  };
}

/** The driver's methods bound to it (a class instance's methods live on its prototype, not in a spread). */
function bindAll(driver: StoreDriver): StoreDriver {
  return {
    engine: driver.engine,
    conceptCandidates: (terms, limit) => driver.conceptCandidates(terms, limit),
    mkuCandidates: (terms, limit) => driver.mkuCandidates(terms, limit),
    knn: (kind, vec, k) => driver.knn(kind, vec, k),
    triggerRows: (seeds, depth) => driver.triggerRows(seeds, depth),
    crossRefRows: (ids, hops) => driver.crossRefRows(ids, hops),
    mkus: (ids) => driver.mkus(ids),
    concepts: (ids) => driver.concepts(ids),
    chunks: (ids) => driver.chunks(ids),
    provenanceRows: (ids) => driver.provenanceRows(ids),
    write: (batch) => driver.write(batch),
    pruneMkus: (docId, keep) => driver.pruneMkus(docId, keep),
    indexInfo: () => driver.indexInfo(),
    setIndexInfo: (info) => driver.setIndexInfo(info),
    counts: () => driver.counts(),
    close: () => driver.close(),
  };
}
