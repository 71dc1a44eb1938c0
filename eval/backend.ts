/**
 * The hub the eval talks to: started in this process through `server/main`'s `startHub` with the normal
 * config loader, so a run measures exactly what `npm start` would serve with the same settings. Its trace
 * goes into the run's out dir (the report links each answer to its line). With `scripted`, a fake llama.cpp
 * router (test/support/fake-router.ts, the real wire) answers in place of a model; scenarios that carry
 * QueryStore records get an in-process fake QueryStore unless QUERYSTORE_BASE_URL is configured.
 */
import path from 'node:path';
import { loadConfig } from '../server/config';
import { startHub, type RunningHub } from '../server/main';
import { FakeQuerystore } from '../test/support/fake-querystore';
import { FakeRouter } from '../test/support/fake-router';
import type { Scenario } from './scenarios';
import { ScriptedReplies } from './scripted';

export const ROOT = path.resolve(__dirname, '..');

/** Every model id the shipped catalogue names: the scripted router serves them all. */
const CATALOGUE_MODELS = ['gemma-4-12b', 'qwen2.5-14b', 'qwen3.5-9b', 'gemma-e4b', 'medgemma-1.5-4b-q8'];

export interface EvalBackend {
  hub: RunningHub;
  /** What answered: the hub's own one-line backend description, or the scripted router. */
  description: string;
  /** Scripted mode only: where a job registers the reply its next turn gets. */
  scripted: ScriptedReplies | null;
  close(): Promise<void>;
}

export interface BackendOptions {
  env: Record<string, string | undefined>;
  traceDir: string;
  scripted: boolean;
  scenarios: readonly Scenario[];
}

export async function startBackend(opts: BackendOptions): Promise<EvalBackend> {
  const stops: Array<() => Promise<void>> = [];
  const env: Record<string, string | undefined> = {
    ...opts.env,
    PORT: '0',
    HOST: '127.0.0.1',
    TEAM_TRACE_DIR: opts.traceDir,
    // Start-up notices (knowledge keys, the drug-safety package) would interleave with the progress bar.
    LOG_LEVEL: opts.env.LOG_LEVEL ?? 'error',
    // "Today" for the temporal checks: each chart's newest record unless the environment fixes one.
    HUB_ANCHOR: opts.env.HUB_ANCHOR ?? 'latest_record',
  };
  try {
    let scripted: ScriptedReplies | null = null;
    if (opts.scripted) {
      scripted = new ScriptedReplies();
      const router = new FakeRouter({ models: CATALOGUE_MODELS, defaultReply: { reply: (req) => scripted!.replyTo(req.body) } });
      await router.start();
      stops.push(() => router.stop());
      Object.assign(env, { LLM_BACKEND: 'router', LLM_BASE_URL: router.baseUrl, LLM_API_KEY: '' });
    }
    const withRecords = opts.scenarios.filter((s) => 'patient' in s.chart && s.chart.records);
    if (withRecords.length > 0 && !env.QUERYSTORE_BASE_URL) {
      const qs = new FakeQuerystore();
      for (const s of withRecords) if ('patient' in s.chart) qs.setChart(s.chart.patient, s.chart.records ?? []);
      const url = await qs.start();
      stops.push(() => qs.stop());
      Object.assign(env, { QUERYSTORE_BASE_URL: url, QUERYSTORE_USERNAME: 'med-agent-hub', QUERYSTORE_PASSWORD: 'hub-secret' });
    }
    const hub = await startHub(loadConfig(definedOnly(env), ROOT));
    stops.unshift(() => hub.close());
    return {
      hub,
      scripted,
      description: opts.scripted ? 'scripted fake llama.cpp router (right and wrong answers from the scenarios)' : hub.backend,
      async close() {
        for (const stop of stops) await stop().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const stop of stops) await stop().catch(() => undefined);
    throw err;
  }
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
