/** What the map's client is made of: the backends, the replica set of each model id, and their health. */
import type { HealthBook } from './health';
import type { Replica, ReplicaSet } from './replicas';

/** A backend of the map: a replica that discovery and `/` can also name. */
export interface MappedBackend extends Replica {
  readonly type: 'router' | 'embedded';
  /** Router: its reduced URL (never a key). */
  readonly url?: string;
}

export interface MappedClientParts {
  /** Model id → the backends serving it. */
  routes: ReadonlyMap<string, ReplicaSet>;
  /** Where a model the map does not name goes; null: it is not served. */
  fallback: ReplicaSet | null;
  /** Every backend once, in the file's order. */
  backends: readonly MappedBackend[];
  health: HealthBook;
}
