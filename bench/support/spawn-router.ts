/** Starts the fake router in a child process and returns its URL and a stop function. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { FakeRouterOptions } from '../../test/support/fake-router';

const ROOT = path.resolve(__dirname, '../..');

export async function spawnFakeRouter(opts: FakeRouterOptions): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['-r', path.join(ROOT, 'scripts/register-ts.js'), path.join(__dirname, 'fake-router-process.ts'), JSON.stringify(opts)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\S+)/.exec(buf);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`fake router exited (${code})`)));
  });
  return {
    baseUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
