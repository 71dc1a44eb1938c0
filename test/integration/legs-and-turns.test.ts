import { parseChartSearchStream } from '../support/chartsearch-sse';
import { postJson, traceLines, useRouterAndHub } from '../support/hub';

const CHART = [
  'Patient records (most recent first):',
  '[1] (2026-03-02) Finding — Weight (kg): 71 kg',
  '[2] (2026-01-10) Finding — Weight (kg): 74 kg',
  '[3] (2025-12-01) Allergy: Penicillin. Reaction: rash',
].join('\n');

describe('indepth-only legs and multi-turn product conversations', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });

  test('indepth-only: elaborates the last assistant message; output mode indepth', async () => {
    ctx.router.script({ content: JSON.stringify({ claims: ['The latest weight is 71 kg [1].', 'A penicillin allergy is documented [3].'] }) });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, {
      model: 'indepth-only:gemma-4-12b@synthesis-indepth~temp0',
      messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'How has the weight changed?' }, { role: 'assistant', content: 'Weight fell from 74 kg [2] to 71 kg [1].' }],
    });
    expect(res.status).toBe(200);
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env).toEqual({ answer: '**In Depth**\n- The latest weight is 71 kg [1].\n- A penicillin allergy is documented [3].', citations: [], blocks: [] });
    const prompt: string = ctx.router.chatRequests()[0].body.messages[0].content;
    expect(prompt).toContain('=== DIRECT ANSWER (elaborate THIS; do not restate it) ===\nWeight fell from 74 kg [2] to 71 kg [1].');
    expect(ctx.router.chatRequests()[0].body.temperature).toBe(0);
  });

  test('indepth-only with no claims returns an empty answer', async () => {
    ctx.router.script({ content: '{"claims":[]}' });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'indepth-only:gemma-4-12b', messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'q' }, { role: 'assistant', content: 'a [1].' }] });
    expect(JSON.parse(((await res.json()) as any).choices[0].message.content)).toEqual({ answer: '', citations: [], blocks: [] });
  });

  test('a ChartSearchAI-shaped multi-turn request: prior prose turns reach the writer, their citations stripped, correlation traced', async () => {
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: '{"claims":[]}' }, { content: JSON.stringify({ answer: 'The latest weight is 71 kg [1].', citations: [1], blocks: [] }) });
    const { raw } = await (async () => {
      const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, {
        model: 'single-12b-bare',
        stream: true,
        messages: [
          { role: 'user', content: CHART },
          { role: 'user', content: 'Any allergies?' },
          { role: 'assistant', content: 'A penicillin allergy is documented [3].' },
          { role: 'user', content: 'And the latest weight?' },
        ],
        context: {
          require_product_profile: true,
          session: 'conv-1',
          request_id: 'turn-2',
          account_context: { source: 'openmrs_session', user_uuid: 'u-1', assigned_roles: ['Organizational: Nurse'], effective_roles: [], session_location: { uuid: 'l', name: 'Clinic' }, locale: 'en' },
        },
      });
      return { raw: await res.text() };
    })();
    const parsed = parseChartSearchStream(raw);
    expect(parsed.error).toBeNull();
    expect(parsed.turns.at(-1)).toBe('turn_done');
    const prompt: string = ctx.router.chatRequests()[0].body.messages[0].content;
    expect(prompt).toContain('Clinician: Any allergies?');
    expect(prompt).toContain('Assistant: A penicillin allergy is documented.');
    expect(prompt.trimEnd().endsWith('And the latest weight?')).toBe(true);
    const t = (await traceLines(ctx.hub)).pop()!;
    expect(t.correlation).toEqual({ session: 'conv-1', request_id: 'turn-2' });
    expect(JSON.stringify(t)).not.toContain('u-1'); // account context is not trace material
  });
});
