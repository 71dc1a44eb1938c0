/** Shared tail of every benchmark: its JSON result file, and running it on its own from the command line. */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './child';

/** Writes `bench/results/<name>.json`: the run's time, then the result's fields. */
export function writeResult(name: string, result: object): void {
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, `bench/results/${name}.json`), `${JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2)}\n`);
}

/** `node -r scripts/register-ts.js bench/<name>.ts`: runs one benchmark, prints its line, exits 1 on failure. */
export function runAsMain<R>(what: string, run: () => Promise<R>, format: (r: R) => string): void {
  run().then(
    (r) => process.stdout.write(`${format(r)}\n`),
    (err: unknown) => {
      process.stderr.write(`${what} bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
