import type { MissingModelHint } from './types';

/** What `/` and `/health` say about the model backend (cheap: never a network call). */
export interface BackendStatus {
  type: 'router' | 'embedded';
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
}
