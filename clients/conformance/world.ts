/**
 * The live world one conformance case runs in: a fake router (llama.cpp's wire), an optional fake
 * QueryStore holding the case's patient, and a real hub started in process with the case's env.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config';
import { startHub, type RunningHub } from '../../server/main';
import { FakeQuerystore, qsRecord } from '../../test/support/fake-querystore';
import { FakeRouter, type ScriptedReply } from '../../test/support/fake-router';
import { ROOT } from '../../test/support/hub';
import type { ConformanceCase } from './case';

export interface CaseWorld {
  router: FakeRouter;
  querystore: FakeQuerystore | null;
  hub: RunningHub;
  /** Puts the case's router script and QueryStore chart back (before each client's run). */
  prepare(): void;
  close(): Promise<void>;
}

const QUERYSTORE_USER = 'med-agent-hub';
const QUERYSTORE_PASSWORD = 'hub-secret';

export async function startCaseWorld(testCase: ConformanceCase): Promise<CaseWorld> {
  const router = new FakeRouter({ models: testCase.router?.models ?? ['gemma-4-12b', 'qwen3.5-9b'] });
  const routerUrl = await router.start();
  // A router that is down: its address is known, nothing listens there any more.
  if (testCase.router?.down) await router.stop();
  const querystore = testCase.querystore ? new FakeQuerystore({ prefix: '/openmrs', username: QUERYSTORE_USER, password: QUERYSTORE_PASSWORD }) : null;
  const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-conformance-'));
  const env: Record<string, string> = {
    PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', HUB_ANCHOR: '2026-03-10', TEAM_TRACE_DIR: traceDir,
    KNOWLEDGE_SOURCE: 'off', KNOWLEDGE_DB_PATH: ':memory:', LLM_BASE_URL: routerUrl,
  };
  if (querystore) {
    Object.assign(env, { QUERYSTORE_BASE_URL: await querystore.start(), QUERYSTORE_USERNAME: QUERYSTORE_USER, QUERYSTORE_PASSWORD: QUERYSTORE_PASSWORD });
  }
  let hub: RunningHub;
  try {
    hub = await startHub(loadConfig({ ...env, ...testCase.hub?.env }, ROOT));
  } catch (err) {
    await querystore?.stop();
    await router.stop();
    throw err;
  }
  return {
    router,
    querystore,
    hub,
    prepare() {
      router.reset();
      router.script(...((testCase.router?.script ?? []) as ScriptedReply[]));
      if (querystore && testCase.querystore) {
        querystore.reset();
        querystore.setChart(testCase.querystore.patient, testCase.querystore.records.map((r) => qsRecord(r)));
      }
    },
    async close() {
      try {
        await hub.close();
      } finally {
        await querystore?.stop();
        await router.stop();
        fs.rmSync(traceDir, { recursive: true, force: true });
      }
    },
  };
}
