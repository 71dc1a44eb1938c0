/**
 * The hub's trace lines for the eval's turns (`<out>/trace/trace.jsonl`), found by the correlation id each
 * request sent, cut down to what the report shows: outcome, per-stage timings, usage, gate status. The
 * chart's record texts stay in the trace file; the excerpt carries none.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface StageTime { stage: string; occurrence: number; duration_ms: number; status: string }

export interface TraceExcerpt {
  hub_request_id: string;
  ts: string;
  level_id: string;
  profile_id: string | null;
  outcome: unknown;
  usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
  temporal_gate: { status?: string; applied?: string; mode?: string } | null;
  stages: StageTime[];
  /** Line number (1-based) in trace.jsonl. */
  line: number;
}

export const TRACE_DIR = 'trace';

/** Trace excerpts by correlation request id (the eval's `request_id`); the latest line wins on a re-run. */
export function readTraceExcerpts(outDir: string): Map<string, TraceExcerpt> {
  const file = path.join(outDir, TRACE_DIR, 'trace.jsonl');
  const out = new Map<string, TraceExcerpt>();
  if (!fs.existsSync(file)) return out;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    let t: Record<string, any>;
    try {
      t = JSON.parse(text);
    } catch {
      return;
    }
    const id = t.correlation?.request_id;
    if (typeof id !== 'string') return;
    const steps: Array<Record<string, any>> = Array.isArray(t.steps) ? t.steps : [];
    out.set(id, {
      hub_request_id: String(t.request_id),
      ts: String(t.ts),
      level_id: String(t.level_id),
      profile_id: t.profile_id ?? null,
      outcome: t.outcome ?? null,
      usage: t.usage ?? null,
      temporal_gate: t.temporal_gate ? { status: t.temporal_gate.status, applied: t.temporal_gate.applied, mode: t.temporal_gate.mode } : null,
      stages: steps.filter((s) => s.role === 'stage_timing').map((s) => ({ stage: s.stage, occurrence: s.occurrence, duration_ms: s.duration_ms, status: s.status })),
      line: i + 1,
    });
  });
  return out;
}
