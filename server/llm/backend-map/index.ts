/**
 * The LLM_BACKENDS map's one door: each model id on its own backend (HTTP routers with their own slot
 * limits, replicas of one id, the embedded engine), behind the one RouterClient the rest of the hub uses.
 * The file is read and checked by the settings layer (config/backend-map.ts); this builds the clients.
 */
import { EMBEDDED_BACKEND, type BackendMapConfig, type Config } from '../../config';
import { reduceUrl } from '../../sanitize';
import type { BackendStatus, MappedBackendStatus, ModelBackend } from '../backend-status';
import { createRouterClient } from '../router-client';
import { MappedRouterClient } from './client';
import { HealthBook } from './health';
import type { MappedBackend } from './parts';
import { ReplicaSet } from './replicas';

export { HealthBook, UNHEALTHY_MS } from './health';
export { MappedRouterClient } from './client';
export { ReplicaSet, leastBusy } from './replicas';
export type { MappedBackend } from './parts';

export interface MappedBackendOptions {
  /** The health clock (tests move it by hand). */
  now?: () => number;
}

/** `gpu-a (http://10.0.0.5:8077)`, or the URL alone when it is the name. */
function describeBackend(b: MappedBackend): string {
  if (!b.url) return b.name;
  const origin = new URL(b.url).origin;
  return b.name.startsWith(origin) ? b.name : `${b.name} (${origin})`;
}

export function createMappedBackend(config: Config, map: BackendMapConfig, opts: MappedBackendOptions = {}): ModelBackend {
  const health = new HealthBook(opts.now);
  const backends: MappedBackend[] = map.routers.map((r) => ({
    name: r.name,
    type: 'router',
    url: reduceUrl(r.baseUrl),
    client: createRouterClient({
      baseUrl: r.baseUrl,
      apiKey: r.apiKey,
      maxConcurrency: r.maxConcurrency,
      maxQueue: r.maxQueue,
      connectTimeoutMs: config.routerConnectTimeoutMs,
      idleTimeoutMs: config.routerIdleTimeoutMs,
      discoveryTimeoutMs: config.routerDiscoveryTimeoutMs,
    }),
  }));
  // One engine serves every `embedded` entry; loaded only when one exists (tens of MB).
  let engine: import('../embedded').EmbeddedEngine | null = null;
  if (map.usesEmbedded) {
    const { createEmbeddedEngine } = require('../embedded') as typeof import('../embedded');
    engine = createEmbeddedEngine({ ...config.embedded, maxConcurrency: config.routerMaxConcurrency, maxQueue: config.routerMaxQueue });
    backends.push({ name: EMBEDDED_BACKEND, type: 'embedded', client: engine.client });
  }
  const byName = new Map(backends.map((b) => [b.name, b] as const));
  const setOf = (names: readonly string[]) => new ReplicaSet(names.map((n) => byName.get(n) as MappedBackend), health);
  const routes = new Map([...map.models].map(([id, names]) => [id, setOf(names)] as const));
  const fallback = map.fallback ? setOf([map.fallback]) : null;
  const client = new MappedRouterClient({ routes, fallback, backends, health });

  const servedHere = (name: string): string[] => [...[...map.models].filter(([, names]) => names.includes(name)).map(([id]) => id), ...(map.fallback === name ? ['*'] : [])];
  const status = (wanted: readonly string[] = []): BackendStatus => {
    const list = backends.map((b): MappedBackendStatus => {
      const s = b.client.slotState();
      const models = servedHere(b.name);
      const common = { name: b.name, type: b.type, in_flight: s.inFlight, queued: s.queued, capacity: s.capacity, max_queue: s.maxQueue, models };
      if (b.type === 'router') return { ...common, url: b.url, health: health.state(b.name) };
      // The engine says where each model the map sends it (and any wanted one it would serve) would be found.
      const mine = wanted.filter((id) => (routes.get(id) ?? fallback)?.replicas.some((r) => r.name === b.name));
      return { ...common, engine: engine?.status(mine) };
    });
    // Routers are not asked here (`/health` stays cheap): ready is known only when the engine is the only backend.
    const ready = list.every((b) => b.engine) ? (list[0]?.engine?.ready ?? null) : null;
    return { type: 'backends', ready, backends: list };
  };
  return {
    client,
    status,
    describe: () => `${backends.length} backend${backends.length === 1 ? '' : 's'} from ${map.file}: ${backends.map(describeBackend).join(', ')}`,
  };
}
