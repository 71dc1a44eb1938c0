/**
 * A hub reading patients from a fake QueryStore (real wire) with the fake router, for one `describe`
 * block: everything the hub logs at the most verbose level is kept in `ctx.logs` (to check it never carries
 * patient data); `seed` puts the charts back before each test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../server/config';
import { startHub, type RunningHub } from '../../server/main';
import { FakeQuerystore } from './fake-querystore';
import { FakeRouter } from './fake-router';
import { ROOT } from './hub';

export interface QuerystoreHub { router: FakeRouter; qs: FakeQuerystore; hub: RunningHub; logs: string[]; traceDir: string }

export interface QuerystoreHubOptions {
  env?: Record<string, string>;
  /** The fake QueryStore's path prefix (as an OpenMRS deployment mounts it). */
  prefix?: string;
  /** Sets the charts on the fake QueryStore before each test (after its reset). */
  seed: (qs: FakeQuerystore) => void;
}

export function useQuerystoreHub(opts: QuerystoreHubOptions): QuerystoreHub {
  const ctx = { logs: [] as string[] } as QuerystoreHub;
  beforeAll(async () => {
    ctx.router = new FakeRouter({ models: ['gemma-4-12b', 'qwen3.5-9b'] });
    await ctx.router.start();
    ctx.qs = new FakeQuerystore(opts.prefix ? { prefix: opts.prefix } : {});
    const qsUrl = await ctx.qs.start();
    const sink = new Writable({ write(chunk, _enc, done) { ctx.logs.push(String(chunk)); done(); } });
    ctx.traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-qs-trace-'));
    const config = loadConfig({
      PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'trace', HUB_ANCHOR: '2026-03-10', TEAM_TRACE_DIR: ctx.traceDir, KNOWLEDGE_SOURCE: 'off', KNOWLEDGE_DB_PATH: ':memory:',
      LLM_BASE_URL: ctx.router.baseUrl, QUERYSTORE_BASE_URL: qsUrl, QUERYSTORE_USERNAME: 'med-agent-hub', QUERYSTORE_PASSWORD: 'hub-secret', ...opts.env,
    }, ROOT);
    ctx.hub = await startHub(config, { logDestination: sink });
  });
  afterAll(async () => {
    try {
      await ctx.hub?.close();
    } finally {
      await ctx.qs?.stop();
      await ctx.router?.stop();
      if (ctx.traceDir) fs.rmSync(ctx.traceDir, { recursive: true, force: true });
    }
  });
  beforeEach(() => {
    ctx.router.reset();
    ctx.qs.reset();
    opts.seed(ctx.qs);
  });
  return ctx;
}
