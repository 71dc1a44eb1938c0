/**
 * Child processes for tests whose hub lives in the test's own process: run without blocking its event
 * loop, a long-running service started until it says it is ready, and the first fenced example of a README
 * section (examples are tested as written).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end asynchronously (a synchronous spawn would freeze the hub it talks to). */
export function runProcess(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface StartedProcess {
  child: ChildProcess;
  /** The match of `ready` in its stdout. */
  ready: RegExpExecArray;
  /** Sends `signal` (SIGTERM by default) and resolves with everything it wrote and its exit code. */
  stop(signal?: NodeJS.Signals): Promise<ProcessResult>;
}

/**
 * Starts a service and resolves once its stdout matches `ready`; rejects with its output when it ends first.
 * Only `env` reaches it (no variable of this process leaks into its settings).
 */
export function startProcess(command: string, args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv; ready: RegExp }): Promise<StartedProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const ended = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    let started = false;
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      const m = started ? null : opts.ready.exec(stdout);
      if (!m) return;
      started = true;
      resolve({
        child,
        ready: m,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return { code: await ended, stdout, stderr };
        },
      });
    });
    child.stderr!.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    child.once('error', reject);
    void ended.then((code) => {
      if (!started) reject(new Error(`${command} ${args.join(' ')} ended (${code}) before it was ready:\n${stdout}${stderr}`));
    });
  });
}

/** The first ```<lang> block under the README's `## Example` heading, verbatim. */
export function readmeExample(readmePath: string, lang: string): string {
  const readme = fs.readFileSync(readmePath, 'utf8');
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme.slice(readme.indexOf('## Example')));
  if (!match) throw new Error(`${readmePath} has no ${lang} example under "## Example"`);
  return match[1];
}
