/**
 * The conformance protocol's data (PROTOCOL.md): a case as cases.json states it, and the observation a
 * client's runner reports for it. Shared by the jest driver and the JS runner; the Java runner reads and
 * writes the same JSON.
 */

/** A FakeRouter ScriptedReply as plain data (no functions). */
export type ScriptedReplyData = Record<string, unknown>;

export interface ConformanceCase {
  name: string;
  /** Why the case exists (read by people, ignored by runners). */
  about?: string;
  hub?: { env?: Record<string, string> };
  router?: {
    /** FakeRouter models (default ['gemma-4-12b', 'qwen3.5-9b']). */
    models?: Array<string | { id: string; status?: 'loaded' | 'unloaded' | 'loading' | 'sleeping'; nCtx?: number }>;
    script?: ScriptedReplyData[];
    /** The router is stopped before the case runs (nothing listens at LLM_BASE_URL). */
    down?: boolean;
  };
  /** A fake QueryStore patient: `records` are `qsRecord` inputs, newest first. */
  querystore?: { patient: string; records: Array<Record<string, unknown>> };
  client?: { apiKey?: string };
  op:
    | { kind: 'models' }
    | { kind: 'ask'; body: Record<string, unknown> }
    | { kind: 'stream'; body: Record<string, unknown>; breakAfter?: string }
    | { kind: 'abort'; body: Record<string, unknown>; breakAfter: string };
  /** Subset-matched against the observation. */
  expect: Record<string, unknown>;
  /** State the driver checks after the case. */
  after?: {
    /** Wait until the hub runs no turn, then require no router chat open and no slot taken (a break/abort freed it). */
    routerIdle?: boolean;
    /** The turn's trace line says it ended so (`cancelled` after a break or abort). */
    outcome?: string;
    /** Exact number of chat completions the router received. */
    routerChats?: number;
    /** The observed model ids are exactly the ids of the hub's own `GET /v1/models`, in its order. */
    modelsMatchHub?: boolean;
    /** The answer contains this text (e.g. a forged `event: done` line that stayed data). */
    answerContains?: string;
  };
}

export interface ErrorObservation {
  kind: string;
  status?: number;
  code?: string | null;
  detail?: unknown;
  message?: string;
}

export type Observation =
  | { ok: true; models: string[] }
  | { ok: true; answer: string; citations: number[]; references: number[]; validation: string | null; inDepth: string | null }
  | { ok: true; events: string[]; answer: string | null; validation: string | null; inDepth: string | null; errorEvent?: { code: string; source: string } }
  | { ok: false; error: ErrorObservation };
