/**
 * The [REF] profile ids deployed clients pin (clients.md §2.1, §2.4; issue #33): each is an alias of a
 * real profile, listed in /v1/models with `alias_of`, served by that profile, and traced under its
 * canonical id (`profile_id`) while `level_id`, the envelope and the completion keep the id the client sent.
 */
import { parseChartSearchStream } from '../support/chartsearch-sse';
import type { RecordedRequest } from '../support/fake-router';
import { scriptChecked } from '../support/checkers';
import { postJson, SMALL_CHART, traceLines, useRouterAndHub } from '../support/hub';

const EXPERT = 'medgemma-1.5-4b-q8';
const QUESTION = 'How has the weight changed?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: QUESTION }];

const ALIASES: Array<[alias: string, canonical: string]> = [
  ['single-e4b-checked', 'single-12b-checked'],
  ['team-med-checked', 'team-12b-checked'],
  ['eval-e4b-answer-only', 'eval-12b-answer-only'],
  ['eval-e4b-temporal-enforce', 'eval-12b-temporal-enforce'],
];

const isToolTurn = (r: RecordedRequest) => Array.isArray(r.body?.tools);

describe('pinned [REF] profile ids', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', EXPERT], env: { HUB_ANCHOR: '2026-03-10' } });

  async function traceOf(requestId: string): Promise<Record<string, any>> {
    const line = (await traceLines(ctx.hub)).find((l) => l.correlation?.request_id === requestId);
    if (!line) throw new Error(`no trace line for ${requestId}`);
    return line;
  }

  test('/v1/models lists each alias after the catalogue with alias_of and its profile\'s facts; only the canonical default is default', async () => {
    const doc = (await (await fetch(`${ctx.hub.url}/v1/models`)).json()) as any;
    const byId = new Map<string, any>(doc.data.map((p: any) => [p.id, p]));
    const canonicalCount = doc.data.filter((p: any) => !('alias_of' in p)).length;
    expect(doc.data.slice(canonicalCount).map((p: any) => p.id)).toEqual(ALIASES.map(([alias]) => alias));
    for (const [alias, canonical] of ALIASES) {
      const { id, default: isDefault, alias_of: aliasOf, ...facts } = byId.get(alias);
      const { id: _id, default: _default, ...canonicalFacts } = byId.get(canonical);
      expect([id, aliasOf, isDefault]).toEqual([alias, canonical, false]);
      expect(facts).toEqual(canonicalFacts);
      expect(facts.available).toBe(true);
    }
    // The harness warm-up's rule: exactly one available product default.
    expect(doc.data.filter((p: any) => p.visibility === 'product' && p.available === true && p.default === true)).toHaveLength(1);
  });

  test('single-e4b-checked (the module\'s documented default) streams a checked turn as single-12b-checked', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: [] });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, {
      model: 'single-e4b-checked', stream: true, messages, context: { require_product_profile: true, request_id: 'alias-e4b' },
    });
    expect(res.status).toBe(200);
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.turns).toEqual(['turn_started', 'answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'turn_done']);
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    // The relay probe checks the requested model on the envelope.
    expect(done.model).toBe('single-e4b-checked');
    expect(done.answerValidation.status).toBe('checked');
    expect(done.references.map((r: any) => [r.index, r.groundingStatus])).toEqual([[3, 'verified'], [2, 'verified']]);
    expect(new Set(ctx.router.chatRequests().map((r) => r.body.model))).toEqual(new Set(['gemma-4-12b']));
    expect(await traceOf('alias-e4b')).toMatchObject({ profile_id: 'single-12b-checked', level_id: 'single-e4b-checked', outcome: { status: 'completed' } });
  });

  test('team-med-checked runs the team profile (gather first) and is traced as team-12b-checked', async () => {
    ctx.router.script({ match: { test: isToolTurn }, content: 'DONE' });
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: [] });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'team-med-checked', messages, context: { request_id: 'alias-team' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.model).toBe('team-med-checked');
    const envelope = JSON.parse(body.choices[0].message.content);
    expect(envelope.answerValidation.status).toBe('checked');
    expect(ctx.router.chatRequests().filter(isToolTurn)).toHaveLength(1);
    expect(await traceOf('alias-team')).toMatchObject({ profile_id: 'team-12b-checked', level_id: 'team-med-checked' });
  });

  test.each([
    ['eval-e4b-answer-only', 'eval-12b-answer-only'],
    ['eval-e4b-temporal-enforce', 'eval-12b-temporal-enforce'],
  ])('%s answers the bare envelope of %s, with references', async (alias, canonical) => {
    ctx.router.script({ content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }) });
    const requestId = `alias-${alias}`;
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: alias, messages, context: { request_id: requestId } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.model).toBe(alias);
    const envelope = JSON.parse(body.choices[0].message.content);
    expect(envelope).toMatchObject({ answer: ANSWER, citations: [3, 2], safetyStatus: 'unavailable' });
    expect(envelope.references.map((r: any) => r.sourceId)).toEqual(['inline:3', 'inline:2']);
    expect(await traceOf(requestId)).toMatchObject({ profile_id: canonical, level_id: alias });
  });

  test('a retired [REF] id nobody aliases is still 404 model_not_found, never forwarded', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'med-agent-team', messages });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).detail.code).toBe('model_not_found');
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });
});
