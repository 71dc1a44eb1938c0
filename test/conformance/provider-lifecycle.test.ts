/**
 * `provider_lifecycle` (../shared/conformance): the client-side event sequences the ChartSearchAI
 * module builds from the hub's staged streams. Each case is produced by a real hub stream against the
 * fake router and read with the module's parsing and settling rules (test/support/chartsearch-sse.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FakeRouter } from '../support/fake-router';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { CLEAN_REVIEW, MARK, factChecker, found } from '../support/checkers';
import { postJson, startTestHub } from '../support/hub';
import type { RunningHub } from '../../server/main';

const FIXTURE = path.resolve(__dirname, '../../../shared/conformance/dual-provider-conformance.v1.json');
const cases: Array<{ id: string; events: string[]; expected: string }> = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')).provider_lifecycle;

const CHART = ['Patient records (most recent first):', '[1] (2026-03-02) Finding — Weight (kg): 71 kg', '[2] (2026-01-10) Finding — Weight (kg): 74 kg'].join('\n');
const ANSWER = JSON.stringify({ answer: 'Weight fell from 74 kg on 2026-01-10 [2] to 71 kg on 2026-03-02 [1].', citations: [2, 1], blocks: [] });

/** The hub request that produces each case. */
const SCENARIOS: Record<string, { body: Record<string, unknown> }> = {
  'provider.lifecycle.required-answer-and-terminal': { body: { model: 'single-12b-fast', messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'Weight?' }] } },
  'provider.lifecycle.review-is-optional': { body: { model: 'single-12b-checked', messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'Weight?' }] } },
  'provider.lifecycle.no-silent-fallback': { body: { model: 'single-12b-bare', messages: [{ role: 'user', content: 'Weight?' }], context: { source: 'inline' } } },
};

describe('conformance: provider_lifecycle', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    router.script(
      { match: { contains: MARK.grounding }, reply: factChecker((p) => [found(p.statement)]) },
      { match: { contains: MARK.answerReview }, content: CLEAN_REVIEW },
      { match: { contains: 'DIRECT ANSWER' }, content: '{"claims":[]}' },
      { content: ANSWER },
    );
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_ANCHOR: '2026-03-10' });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });

  test('every fixture case has a scenario', () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual(cases.map((c) => c.id).sort());
  });

  for (const c of cases) {
    const scenario = SCENARIOS[c.id];
    test(c.id, async () => {
      const res = await postJson(`${hub.url}/v1/chat/completions`, { ...scenario.body, stream: true, context: { require_product_profile: true, ...(scenario.body.context as object) } });
      const parsed = parseChartSearchStream(await res.text());
      expect(parsed.turns).toEqual(c.events);
      expect(parsed.settled).toEqual([]); // the hub never leaves a stage for the client to settle
    });
  }
});
