/**
 * What a process allocates, not what it keeps: V8's sampling heap profiler through node:inspector in the
 * process itself, told to keep the samples of objects the GC has collected since (so the total is the
 * allocation volume the young-generation GC has to work through). Unlike CPU time, the volume hardly
 * moves with the machine's speed or load, so two runs on different days compare.
 * Used in benchmark children (hub, do-nothing proxy) over IPC (`{ type: 'alloc', action }`) and in the
 * benchmark process itself.
 */
import { Session } from 'node:inspector';

/** One byte in SAMPLE_INTERVAL_BYTES (on average) is sampled: about 0.1% error on the volumes measured here. */
const SAMPLE_INTERVAL_BYTES = 4096;
/** Allocation sites reported per run. */
const TOP_SITES = Number(process.env.BENCH_ALLOC_TOP ?? 10);

export interface AllocationSite {
  /**
   * The innermost hub function on the allocating stack (`name (server/…:line)`; in a benchmark hub the line
   * is the compiled JavaScript's, so look the name up), else where it happened outside hub code.
   */
  site: string;
  bytes: number;
}

export interface AllocationReport {
  type: 'alloc';
  bytes: number;
  sites: AllocationSite[];
  /** Set when the sampler could not start or stop (the benchmark fails with it). */
  error?: string;
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

let session: Session | undefined;

function post<T>(method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));
}

export async function startAllocationSampling(): Promise<void> {
  if (session) throw new Error('allocation sampling already running');
  session = new Session();
  session.connect();
  await post('HeapProfiler.startSampling', { samplingInterval: SAMPLE_INTERVAL_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}

export async function stopAllocationSampling(): Promise<AllocationReport> {
  if (!session) throw new Error('allocation sampling is not running');
  try {
    const { profile } = await post<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
    return summarize(profile.head);
  } finally {
    session.disconnect();
    session = undefined;
  }
}

/** Hub code is under server/ (the TypeScript sources, or their compiled copy in a bench build). */
function hubFrame(url: string): string | null {
  const at = url.lastIndexOf('/server/');
  return at < 0 || url.includes('/node_modules/') ? null : url.slice(at + 1);
}

function outsideSite(url: string): string {
  const dep = url.lastIndexOf('/node_modules/');
  if (dep >= 0) {
    const [scope, name] = url.slice(dep + '/node_modules/'.length).split('/');
    return `dep ${scope.startsWith('@') ? `${scope}/${name}` : scope}`;
  }
  return url.startsWith('node:') ? 'node internals' : 'native';
}

/**
 * Sums self sizes, each charged to the innermost hub function on its stack; an allocation with no hub
 * code on its stack (the HTTP server parsing a request, say) to the module of its own frame.
 */
export function summarize(head: ProfileNode): AllocationReport {
  const bySite = new Map<string, number>();
  let bytes = 0;
  const walk = (node: ProfileNode, hubSite: string | null) => {
    const cf = node.callFrame;
    const hub = hubFrame(cf.url);
    const site = hub ? `${cf.functionName || '(anonymous)'} (${hub}:${cf.lineNumber + 1})` : hubSite;
    if (node.selfSize > 0) {
      const key = site ?? outsideSite(cf.url);
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
      bytes += node.selfSize;
    }
    for (const child of node.children) walk(child, site);
  };
  walk(head, null);
  const sites = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, TOP_SITES).map(([site, b]) => ({ site, bytes: b }));
  return { type: 'alloc', bytes, sites };
}

/** Child side: answers `{ type: 'alloc', action: 'start' | 'stop' }` (start replies with zero bytes); never rejects. */
export async function answerAllocation(action: unknown): Promise<AllocationReport> {
  try {
    if (action !== 'start') return await stopAllocationSampling();
    await startAllocationSampling();
    return { type: 'alloc', bytes: 0, sites: [] };
  } catch (err) {
    return { type: 'alloc', bytes: 0, sites: [], error: err instanceof Error ? err.message : String(err) };
  }
}

/** Parent side: `child` allocates while `run` goes. */
export async function allocatedDuring(child: { ask<T>(msg: { type: string; [k: string]: unknown }): Promise<T> }, run: () => Promise<void>): Promise<AllocationReport> {
  const started = await child.ask<AllocationReport>({ type: 'alloc', action: 'start' });
  if (started.error) throw new Error(`allocation sampler: ${started.error}`);
  await run();
  const report = await child.ask<AllocationReport>({ type: 'alloc', action: 'stop' });
  if (report.error) throw new Error(`allocation sampler: ${report.error}`);
  return report;
}
