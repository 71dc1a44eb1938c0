/**
 * Benchmark child processes (fake router, hub, bare Node): ready once they print `READY <url>`, asked for
 * their own CPU time and RSS over IPC, read from outside through /proc, and always stopped (SIGTERM, then
 * SIGKILL). Children also stop when this process goes away (their IPC channel disconnects).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const REGISTER_TS = path.join(ROOT, 'scripts/register-ts.js');

/** What a child reports about itself (process.cpuUsage() and RSS), plus entry-specific counters. */
export interface ChildUsage {
  type: 'usage';
  cpuUs: number;
  /** The kernel's share of cpuUs (socket writes, connects): tells syscall cost from JavaScript. */
  systemUs: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** V8 heap reserved (committed), used or not. */
  heapTotalBytes: number;
  /** Memory of Buffers and other C++-backed objects outside the V8 heap. */
  externalBytes: number;
  counters: Record<string, number>;
}

/** Child side: the answer to `{ type: 'usage' }`. */
export function answerUsage(counters: Record<string, number> = {}): ChildUsage {
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  return { type: 'usage', cpuUs: cpu.user + cpu.system, systemUs: cpu.system, rssBytes: mem.rss, heapUsedBytes: mem.heapUsed, heapTotalBytes: mem.heapTotal, externalBytes: mem.external, counters };
}

export interface BenchChild {
  url: string;
  pid: number;
  /** CPU time and RSS as the child measures itself (process.cpuUsage / memoryUsage.rss). */
  usage(): Promise<ChildUsage>;
  /** Sends `msg` and resolves with the first reply whose `type` equals msg.type. */
  ask<T>(msg: { type: string; [k: string]: unknown }): Promise<T>;
  /** Resident set size read from outside (/proc/<pid>/status VmRSS), in bytes. */
  vmRss(): number;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  /** false: the child sees only `env` and PATH, HOME, TMPDIR, TZ of this process (a test's hub must not read the shell's HUB_* or LLM_*). */
  inheritEnv?: boolean;
  readyTimeoutMs?: number;
  /** A command the child runs under (e.g. valgrind and its options): `wrapper… node <nodeArgs…>`, same pid. */
  wrapper?: string[];
}

const BASE_ENV = ['PATH', 'HOME', 'TMPDIR', 'TZ'];

/** Spawns `node <nodeArgs…>` with stdout piped (for READY) and an IPC channel. */
export async function spawnBenchChild(nodeArgs: string[], opts: SpawnOptions = {}): Promise<BenchChild> {
  const [command, ...prefix] = opts.wrapper?.length ? [...opts.wrapper, process.execPath] : [process.execPath];
  const child = spawn(command, [...prefix, ...nodeArgs], {
    cwd: ROOT,
    env: { ...(opts.inheritEnv === false ? Object.fromEntries(BASE_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]])) : process.env), ...opts.env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exit;
    clearTimeout(killer);
  };
  try {
    const url = await waitReady(child, opts.readyTimeoutMs ?? 30_000);
    const ask = <T>(msg: { type: string }) => askChild<T>(child, msg);
    return { url, pid: child.pid!, usage: () => ask<ChildUsage>({ type: 'usage' }), ask, vmRss: () => vmRssBytes(child.pid!), stop };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}

function waitReady(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`child ${child.pid} not ready after ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code}) before it was ready`));
    });
  });
}

function askChild<T>(child: ChildProcess, msg: { type: string }): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (reply: unknown) => {
      if ((reply as { type?: string })?.type !== msg.type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(reply as T);
    };
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`child ${child.pid}: no '${msg.type}' reply`));
    }, 10_000);
    child.on('message', onMessage);
    child.send(msg);
  });
}

export function vmRssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** CPU time (user + system, ms) of any process, read from outside (/proc/<pid>/stat): for children that answer no IPC. */
export function procCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100; // USER_HZ on Linux
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** An idle Node process with the same IPC channel as the other children (the memory baseline). */
export function spawnBareNode(): Promise<BenchChild> {
  return spawnBenchChild(['-e', "process.stdout.write('READY none\\n'); process.on('disconnect', () => process.exit(0)); setInterval(() => {}, 1e9);"]);
}
