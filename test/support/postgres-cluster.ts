/**
 * Throw-away PostgreSQL clusters for tests and benchmarks: initdb into a temporary folder, the server on
 * 127.0.0.1 at a free port (its unix socket in that folder too), trust authentication, and databases made with
 * the `vector` and `unaccent` extensions. Run as root (CI), the cluster runs as the `postgres` OS user, because
 * initdb and postgres refuse root.
 *
 * The server is the child of a small keeper shell that holds this process's end of a pipe: stopping closes the
 * pipe, and so does this process dying in any way, so the keeper always stops the server and removes the
 * folder. Nothing outlives the test process, even when jest is killed.
 *
 * `.ci/postgres` installs what this needs on Debian. `findPostgres()` says what is missing otherwise.
 */
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { runProcess } from './run-process';

export interface PostgresInstall {
  bindir: string;
  version: string;
  /** The OS user the cluster runs as when this process is root; null to run as ourselves. */
  runAs: string | null;
}

export type PostgresLookup = { found: true; install: PostgresInstall } | { found: false; reason: string };

const DEBIAN_ROOT = '/usr/lib/postgresql';
const EXTENSIONS = ['vector', 'unaccent'];
/** Where a missing piece is explained to whoever runs the suite. */
export const INSTALL_HINT = 'run `sudo .ci/postgres` (Debian), or set PG_BINDIR to a PostgreSQL server with pgvector; see the README, "Knowledge store on PostgreSQL"';

function newestDebianBindir(): string | null {
  if (!fs.existsSync(DEBIAN_ROOT)) return null;
  const versions = fs.readdirSync(DEBIAN_ROOT)
    .filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(DEBIAN_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(DEBIAN_ROOT, versions[0], 'bin') : null;
}

/** The server binaries (PG_BINDIR, else Debian's newest), checked for initdb, postgres and both extensions. */
export function findPostgres(): PostgresLookup {
  const bindir = process.env.PG_BINDIR || newestDebianBindir();
  if (!bindir) return { found: false, reason: `no PostgreSQL server found (looked in ${DEBIAN_ROOT}/*/bin)` };
  for (const exe of ['initdb', 'postgres', 'pg_config']) {
    if (!fs.existsSync(path.join(bindir, exe))) return { found: false, reason: `${path.join(bindir, exe)} is missing` };
  }
  const config = (flag: string) => execFileSync(path.join(bindir, 'pg_config'), [flag], { encoding: 'utf8' }).trim();
  const sharedir = config('--sharedir');
  const version = config('--version');
  const major = Number(/PostgreSQL (\d+)/.exec(version)?.[1] ?? 0);
  if (major < 15) return { found: false, reason: `${version} is older than 15 (the clusters' ICU locale needs 15)` };
  for (const ext of EXTENSIONS) {
    const control = path.join(sharedir, 'extension', `${ext}.control`);
    if (!fs.existsSync(control)) return { found: false, reason: `${version} has no ${ext} extension (${control} is missing)` };
  }
  let runAs: string | null = null;
  if (process.getuid?.() === 0) {
    runAs = 'postgres';
    try {
      execFileSync('id', ['-u', runAs], { stdio: 'ignore' });
    } catch {
      return { found: false, reason: 'running as root, and there is no postgres OS user to run the cluster as' };
    }
  }
  return { found: true, install: { bindir, version, runAs } };
}

/** Whether a missing PostgreSQL fails the suite (CI) or skips its PostgreSQL tests with one message (elsewhere). */
export const POSTGRES_REQUIRED = /^(1|true|yes)$/i.test(process.env.CI ?? '');

let skipNoted = false;
/**
 * Whether this test file's real-PostgreSQL tests run: when the server is here, or when it is required (CI), so
 * that its absence fails them (`openTestDatabase` names what is missing). Otherwise false, with one message.
 */
export function realPostgresRuns(): boolean {
  const l = postgresLookup();
  if (l.found || POSTGRES_REQUIRED) return true;
  if (!skipNoted) console.warn(`Tests on a real PostgreSQL are skipped: ${l.reason}. To run them, ${INSTALL_HINT}. (With CI=true this is a failure.)`);
  skipNoted = true;
  return false;
}

export interface TestDatabase {
  name: string;
  /** postgres://postgres@127.0.0.1:<port>/<name>, trust authentication. */
  url: string;
  /** Drops the database (every connection to it must be closed). */
  drop(): Promise<void>;
  /**
   * Ends every client connection to the database from the server's side, as a restart or an idle timeout would,
   * and resolves once the server holds none (the number ended).
   */
  dropConnections(): Promise<number>;
}

export interface PostgresCluster {
  port: number;
  /** A new, empty database with `vector` and `unaccent` created in it. */
  createDatabase(): Promise<TestDatabase>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

// The keeper: the server in the background, stopped (fast shutdown) when our stdin reaches its end, then the
// folder removed. Its stdout and stderr are the server's log.
const KEEPER = `
dir=$1; bin=$2; shift 2
"$bin/postgres" -D "$dir/data" "$@" &
pid=$!
cat >/dev/null
kill -INT "$pid" 2>/dev/null
wait "$pid"
rm -rf "$dir"
`;

const READY = 'database system is ready to accept connections';
const START_ATTEMPTS = 3;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const asUser = (install: PostgresInstall, cmd: string, args: string[]): [string, string[]] =>
  install.runAs ? ['runuser', ['-u', install.runAs, '--', cmd, ...args]] : [cmd, args];

function makeFolder(install: PostgresInstall): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-pg-'));
  if (install.runAs) {
    const id = (flag: string) => Number(execFileSync('id', [flag, install.runAs!], { encoding: 'utf8' }).trim());
    fs.chownSync(dir, id('-u'), id('-g'));
  }
  return dir;
}

async function initdb(install: PostgresInstall, dir: string): Promise<void> {
  // No fsync: the cluster is thrown away. UTF-8 whatever the machine's locale, and a French collation (ICU
  // fr-FR), as a French production database may have: SQL whose answers hang on the collation then shows up
  // here (PGlite is C-collated).
  const [cmd, args] = asUser(install, path.join(install.bindir, 'initdb'), [
    '-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '--no-instructions', '-E', 'UTF8', '--locale=C.UTF-8',
    '--locale-provider=icu', '--icu-locale=fr-FR',
  ]);
  const r = await runProcess(cmd, args);
  if (r.code !== 0) throw new Error(`initdb failed (${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
}

class ServerStartError extends Error {}

interface Keeper {
  child: ChildProcessWithoutNullStreams;
  /** Settles when the keeper has ended (the server stopped and the folder is gone). */
  ended: Promise<void>;
}

/** Starts the keeper on `port`; resolves once the server accepts connections, rejects with its log if it stops first. */
function startServer(install: PostgresInstall, dir: string, port: number): Promise<Keeper> {
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: dir, fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };
  const serverArgs = ['-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const [cmd, args] = asUser(install, '/bin/sh', ['-c', KEEPER, 'keeper', dir, install.bindir, ...serverArgs]);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let spawnError: Error | null = null;
  const ended = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      spawnError = err;
      resolve();
    });
  });
  return new Promise((resolve, reject) => {
    let log = '';
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      child.stdin.end();
      void ended.then(() => reject(new ServerStartError(`PostgreSQL did not start on port ${port}: ${why}\n${log.trim()}`)));
    };
    const read = (chunk: Buffer) => {
      if (settled) return;
      log += chunk.toString('utf8');
      if (log.includes(READY)) {
        settled = true;
        resolve({ child, ended });
      } else if (/\b(FATAL|PANIC):/.test(log)) {
        fail('the server stopped');
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void ended.then(() => fail(spawnError ? spawnError.message : 'its keeper ended'));
  });
}

async function admin<T>(port: number, fn: (c: Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * initdb, then the server. A port taken by someone else between choosing and binding it costs another attempt
 * from a fresh folder (at most three).
 */
export async function startPostgresCluster(install: PostgresInstall): Promise<PostgresCluster> {
  let lastError: Error = new Error('PostgreSQL did not start');
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const dir = makeFolder(install);
    try {
      await initdb(install, dir);
      const port = await freePort();
      return clusterOver(await startServer(install, dir, port), dir, port);
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      if (!(err instanceof ServerStartError)) throw err;
      lastError = err;
    }
  }
  throw lastError;
}

function clusterOver(keeper: Keeper, dir: string, port: number): PostgresCluster {
  // The log keeps flowing and must be read: a full pipe would stall the server.
  keeper.child.stdout.resume();
  keeper.child.stderr.resume();
  let databases = 0;
  return {
    port,
    async createDatabase() {
      const name = `kb_${++databases}`;
      await admin(port, (c) => c.query(`CREATE DATABASE ${name}`));
      await admin(port, async (c) => {
        for (const ext of EXTENSIONS) await c.query(`CREATE EXTENSION ${ext}`);
      }, name);
      return {
        name,
        url: `postgres://postgres@127.0.0.1:${port}/${name}`,
        drop: async () => void (await admin(port, (c) => c.query(`DROP DATABASE ${name}`))),
        dropConnections: () => admin(port, async (c) => {
          const others = 'FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()';
          const { rowCount } = await c.query(`SELECT pg_terminate_backend(pid) ${others}`, [name]);
          // Each query reads a fresh snapshot of the server's sessions.
          for (let i = 0; i < 1000; i++) {
            const { rows } = await c.query<{ n: number }>(`SELECT COUNT(*)::int AS n ${others}`, [name]);
            if (rows[0].n === 0) return rowCount ?? 0;
          }
          throw new Error(`connections to ${name} were still open after 1000 checks`);
        }),
      };
    },
    async stop() {
      keeper.child.stdin.end();
      await keeper.ended;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

let lookup: PostgresLookup | null = null;
/** findPostgres(), asked once per process. */
export function postgresLookup(): PostgresLookup {
  return (lookup ??= findPostgres());
}

type Shared = { cluster: Promise<PostgresCluster>; users: number };
let shared: Shared | null = null;

async function release(s: Shared): Promise<void> {
  if (--s.users > 0) return;
  if (shared === s) shared = null;
  const cluster = await s.cluster.catch(() => null);
  await cluster?.stop();
}

/**
 * A fresh database on this process's cluster (a jest test file is one module registry, so one cluster per file):
 * the first database starts the cluster, dropping the last one stops it and removes its folder.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const found = postgresLookup();
  if (!found.found) throw new Error(`PostgreSQL is needed here, but ${found.reason}; ${INSTALL_HINT}`);
  const s = (shared ??= { cluster: startPostgresCluster(found.install), users: 0 });
  s.users++;
  try {
    const db = await (await s.cluster).createDatabase();
    return {
      ...db,
      drop: async () => {
        try {
          await db.drop();
        } finally {
          await release(s);
        }
      },
    };
  } catch (err) {
    await release(s);
    throw err;
  }
}
