/**
 * Discovery over the map: every backend's inventory read at once (each bounded by its own discovery
 * timeout), merged into the one inventory `/v1/models` and Catalyst discovery report. A model is advertised
 * when a backend the map sends it to lists it, and `servedBy` names those backends; a model the map does not
 * name is advertised when the fallback backend lists it. A backend that cannot be read makes only its own
 * models unavailable (each says so in `missingModel`), and the inventory is unreachable only when no backend
 * could be read. Discovery is also the health probe: a backend read is healthy, one that is not is marked down.
 */
import type { MissingModelHint, ModelInventory } from '../types';
import type { MappedBackend, MappedClientParts } from './parts';
import type { ReplicaSet } from './replicas';

const UNREACHABLE: ModelInventory = { reachable: false, ids: [], entries: {} };

function describe(b: MappedBackend): string {
  return b.url ? `backend '${b.name}' (${b.url})` : `backend '${b.name}'`;
}

export async function mergedInventory(parts: MappedClientParts, opts: { signal?: AbortSignal }): Promise<ModelInventory> {
  const listed = await Promise.all(parts.backends.map((b) => b.client.listModels(opts).catch(() => UNREACHABLE)));
  const read = new Map<string, { backend: MappedBackend; inv: ModelInventory; ids: Set<string> }>();
  parts.backends.forEach((backend, i) => {
    const inv = listed[i];
    read.set(backend.name, { backend, inv, ids: new Set(inv.ids) });
    if (backend.type !== 'router') return;
    if (inv.reachable) parts.health.up(backend.name);
    else parts.health.down(backend.name);
  });

  const ids: string[] = [];
  // Null prototypes: a model id such as `__proto__` is just another id.
  const entries = Object.create(null) as Record<string, Record<string, unknown>>;
  const servedBy = Object.create(null) as Record<string, string[]>;
  const serve = (id: string, set: ReplicaSet) => {
    const names: string[] = [];
    for (const r of set.replicas) {
      const got = read.get(r.name);
      if (!got) continue;
      if (!Object.hasOwn(entries, id) && Object.hasOwn(got.inv.entries, id)) entries[id] = got.inv.entries[id];
      if (got.inv.reachable && got.ids.has(id)) names.push(r.name);
    }
    if (names.length === 0) return;
    ids.push(id);
    servedBy[id] = names;
  };
  for (const [id, set] of parts.routes) serve(id, set);
  const fallback = parts.fallback;
  if (fallback) {
    const others = new Set<string>();
    for (const r of fallback.replicas) for (const id of read.get(r.name)?.inv.ids ?? []) if (!parts.routes.has(id)) others.add(id);
    for (const id of others) serve(id, fallback);
  }

  const notes: string[] = [];
  for (const { backend, inv } of read.values()) {
    for (const note of inv.notes ?? []) notes.push(`${backend.name}: ${note}`);
    if (!inv.reachable) notes.push(`${describe(backend)} could not be queried: the models it serves are unavailable until it answers.`);
  }
  const missingModel = (id: string): MissingModelHint | null => {
    const set = parts.routes.get(id) ?? fallback;
    if (!set) return { model: id, advice: `The LLM_BACKENDS file names no backend for model '${id}' (and no LLM_BASE_URL serves the models it does not name).` };
    const down = set.replicas.filter((r) => !read.get(r.name)?.inv.reachable).map((r) => read.get(r.name)?.backend).filter((b): b is MappedBackend => b !== undefined);
    if (down.length === set.replicas.length) return { model: id, advice: `${down.map(describe).join(' and ')} serving model '${id}' could not be queried: check that it is running.` };
    // The embedded engine says which file it looks for.
    for (const r of set.replicas) {
      const hint = read.get(r.name)?.inv.missingModel?.(id);
      if (hint) return hint;
    }
    const names = set.replicas.map((r) => read.get(r.name)?.backend).filter((b): b is MappedBackend => b !== undefined);
    return { model: id, advice: `${names.map(describe).join(' and ')} ${names.length > 1 ? 'do' : 'does'} not list model '${id}'.` };
  };
  return {
    reachable: listed.some((inv) => inv.reachable),
    ids,
    entries,
    ...(notes.length ? { notes } : {}),
    missingModel,
    servedBy,
    backends: parts.backends.map((b) => ({ name: b.name, type: b.type, ...(b.url ? { url: b.url } : {}), reachable: read.get(b.name)?.inv.reachable ?? false })),
  };
}
