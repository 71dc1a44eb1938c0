import type { MissingModelHint, RouterClient } from './types';

/** The model backend main builds: the one client, and what `/`, `/health` and the start-up line say of it. */
export interface ModelBackend {
  client: RouterClient;
  /** `wanted`: the model ids the profiles need; the embedded engine says where each one it lacks goes. */
  status(wanted?: readonly string[]): BackendStatus;
  /** One line for the start-up message. */
  describe(): string;
}

/** What `/` and `/health` say about the model backend (cheap: never a network call). */
export interface BackendStatus {
  /** `backends`: the LLM_BACKENDS map, each of its backends under `backends`. */
  type: 'router' | 'embedded' | 'backends';
  /** Router: unknown without asking it (null); embedded: at least one model can be served. */
  ready: boolean | null;
  /** Router: its reduced URL. */
  url?: string;
  models_dir?: string;
  models?: Array<{ id: string; file: string; status: string; reason?: string; n_ctx?: number; busy_sequences?: number; generated_tokens?: number }>;
  /** Embedded: each model a profile needs that cannot be served, with the file it looks for (same words as /v1/models). */
  missing_models?: MissingModelHint[];
  /** What to do, when something is missing or broken. */
  notes?: string[];
  /** LLM_BACKENDS: every backend of the map, its state and the models it serves. */
  backends?: MappedBackendStatus[];
}

/** One backend of the LLM_BACKENDS map on `/` (its health and slots as the hub sees them; no network call). */
export interface MappedBackendStatus {
  name: string;
  type: 'router' | 'embedded';
  /** Router: its reduced URL. */
  url?: string;
  /** Router: `unhealthy` after a failure that never reached a model, until its period ends (`probing`: the next call or discovery decides). */
  health?: 'healthy' | 'unhealthy' | 'probing';
  in_flight: number;
  queued: number;
  capacity: number;
  max_queue: number;
  /** The model ids the map sends here (`*`: every model the map does not name). */
  models: string[];
  /** Embedded: the engine's own status. */
  engine?: BackendStatus;
}
