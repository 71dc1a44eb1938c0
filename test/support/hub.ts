/** Starts a real hub on loopback for integration tests, configured like production from an env table. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config';
import { startHub, type RunningHub } from '../../server/main';
import { FakeRouter, type FakeTemplate } from './fake-router';

export const ROOT = path.resolve(__dirname, '../..');

export async function startTestHub(env: Record<string, string>): Promise<RunningHub> {
  // Each hub traces into its own temporary directory (tests read it through hub.trace / the file).
  const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-trace-'));
  // The knowledge-base source is off unless a suite turns it on (KNOWLEDGE_SOURCE=auto, with KNOWLEDGE_DB_PATH=:memory:
  // and its own KNOWLEDGE_CONTENT): the other suites keep their prompts and router call counts. A store any suite
  // opens is in memory unless it names a file: no test writes into the checkout's data/knowledge/.
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TEAM_TRACE_DIR: traceDir, KNOWLEDGE_SOURCE: 'off', KNOWLEDGE_DB_PATH: ':memory:', ...env }, ROOT);
  const hub = await startHub(config);
  const close = hub.close.bind(hub);
  // The temporary trace directory goes with the hub (a test that reads traces does so before closing).
  hub.close = async () => {
    await close();
    fs.rmSync(traceDir, { recursive: true, force: true });
  };
  return hub;
}

export async function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(init.headers ?? {}) }, body: typeof body === 'string' ? body : JSON.stringify(body), signal: init.signal });
}

/** A small inline chart in the ChartSearchAI layout (run-length dates: [3] inherits 2026-01-10). */
export const SMALL_CHART = [
  'Patient records (most recent first):',
  '[1] (2026-03-02) Encounter: Adult Visit at Clinic A',
  '[2] (2026-03-02) Finding — Weight (kg): 71 kg',
  '[3] (2026-01-10) Finding — Weight (kg): 74 kg',
  '[4] Assessment — Return visit date: 2026-04-01',
  '[5] (2025-12-01) Allergy: Penicillin. Reaction: rash',
].join('\n');

/** The trace lines a hub has written so far (after flushing its writer). */
export async function traceLines(hub: RunningHub, dir?: string): Promise<Array<Record<string, any>>> {
  await hub.trace.flush();
  const file = path.join(dir ?? hub.traceDir, 'trace.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** The fake router's models (default gemma-4-12b) and chat template (default llama2), and the hub's env. */
export interface RouterAndHubOptions {
  models?: string[];
  env?: Record<string, string>;
  template?: FakeTemplate;
}

/**
 * A fake router and a hub for one `describe` block: started before its tests, stopped after, the
 * router's scripts and records cleared before each test. Read `ctx.router` / `ctx.hub` inside tests.
 */
export function useRouterAndHub(opts: RouterAndHubOptions = {}): { router: FakeRouter; hub: RunningHub } {
  return useRouterWith(opts, startTestHub, (hub) => hub.close());
}

/** The lifecycle of useRouterAndHub for any hub: `start` gets the env with LLM_BASE_URL set to the router. */
export function useRouterWith<H>(opts: RouterAndHubOptions, start: (env: Record<string, string>) => Promise<H>, stop: (hub: H) => Promise<void>): { router: FakeRouter; hub: H } {
  const ctx = {} as { router: FakeRouter; hub: H };
  beforeAll(async () => {
    ctx.router = new FakeRouter({ models: opts.models ?? ['gemma-4-12b'], template: opts.template });
    await ctx.router.start();
    ctx.hub = await start({ LLM_BASE_URL: ctx.router.baseUrl, ...opts.env });
  });
  afterAll(async () => {
    // Whatever failed before (a test, or the hub's start), the router and any hub started go.
    try {
      if (ctx.hub) await stop(ctx.hub);
    } finally {
      await ctx.router?.stop();
    }
  });
  beforeEach(() => ctx.router.reset());
  return ctx;
}
