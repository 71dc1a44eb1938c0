/**
 * Child processes for tests whose hub lives in the test's own process: run without blocking its event
 * loop, and the first fenced example of a README section (examples are tested as written).
 */
import { spawn } from 'node:child_process';
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

/** The first ```<lang> block under the README's `## Example` heading, verbatim. */
export function readmeExample(readmePath: string, lang: string): string {
  const readme = fs.readFileSync(readmePath, 'utf8');
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme.slice(readme.indexOf('## Example')));
  if (!match) throw new Error(`${readmePath} has no ${lang} example under "## Example"`);
  return match[1];
}
