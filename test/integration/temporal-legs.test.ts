import { postJson, traceLines, useRouterAndHub } from '../support/hub';

const CHART = [
  'Patient records (most recent first):',
  '[1] (2026-03-02) Encounter: Adult Visit at Clinic A',
  '[2] (2026-03-02) Finding — Weight (kg): 71 kg',
  '[3] (2026-01-10) Finding — Weight (kg): 74 kg',
  '[4] Assessment — Return visit date: 2026-04-01',
].join('\n');
const messages = (q: string) => [{ role: 'user', content: CHART }, { role: 'user', content: q }];
const SWAPPED = 'Weight was 71 kg on 2026-01-10 [3] and 74 kg on 2026-03-02 [2].';
const CORRECT = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const reply = (answer: string) => JSON.stringify({ answer, citations: [], blocks: [] });

async function envelopeOf(res: Response) {
  expect(res.status).toBe(200);
  return JSON.parse(((await res.json()) as any).choices[0].message.content);
}

describe('temporal gate on answer legs (~warn, ~enforce)', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });

  test('~enforce: a draft that swaps two weights returns the patched answer and the original draft', async () => {
    ctx.router.script({ content: reply(SWAPPED) });
    const env = await envelopeOf(await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~enforce~temp0', messages: messages('How has the weight changed?') }));
    expect(env.answer).not.toBe(SWAPPED);
    expect(env.answer).toContain('74 kg on 2026-01-10');
    expect(env.answer).toContain('71 kg on 2026-03-02');
    expect(env.temporalGate).toMatchObject({ schema_version: 'temporal_gate.v1', mode: 'enforce', status: 'fail', applied: 'patch' });
    expect(env.temporalGate.checks.map((c: { id: string }) => c.id)).toContain('date_value_binding');
    expect(env.answerValidation).toMatchObject({ status: 'edited', label: 'Updated after check', originalAnswer: SWAPPED });
    expect(env.citations.length).toBeGreaterThan(0);
    const t = (await traceLines(ctx.hub)).pop()!;
    expect(t.temporal_gate.applied).toBe('patch');
  });

  test('~enforce: a correct trend passes and is visibly checked', async () => {
    ctx.router.script({ content: reply(CORRECT) });
    const env = await envelopeOf(await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~enforce~temp0', messages: messages('How has the weight changed?') }));
    expect(env.answer).toBe(CORRECT);
    expect(env.temporalGate.status).toBe('pass');
    expect(env.temporalGate.applied).toBe('none');
    expect(env.temporalGate.checks.every((c: { status: string }) => c.status === 'pass')).toBe(true);
    expect(env.answerValidation.status).toBe('checked');
    expect(env.answerValidation.originalAnswer).toBeUndefined();
  });

  test('~warn reports the failure but never edits', async () => {
    ctx.router.script({ content: reply(SWAPPED) });
    const env = await envelopeOf(await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~warn', messages: messages('How has the weight changed?') }));
    expect(env.answer).toBe(SWAPPED);
    expect(env.temporalGate).toMatchObject({ mode: 'warn', status: 'fail', applied: 'none' });
    expect(env.answerValidation.status).toBe('needs_review');
  });

  test('request context may switch a leg to warn', async () => {
    ctx.router.script({ content: reply(SWAPPED) });
    const env = await envelopeOf(
      await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~enforce', messages: messages('How has the weight changed?'), context: { temporal_gate: 'warn' } }),
    );
    expect(env.answer).toBe(SWAPPED);
    expect(env.temporalGate.mode).toBe('warn');
  });

  test('a past return visit called upcoming is patched with the fact that cites its record', async () => {
    const chart = ['Patient records (most recent first):', '[1] (2026-03-02) Encounter: Visit', '[2] (2026-01-10) Assessment — Return visit date: 2026-02-01'].join('\n');
    ctx.router.script({ content: reply('The next appointment is on 2026-02-01 [2].') });
    const env = await envelopeOf(
      await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~enforce', messages: [{ role: 'user', content: chart }, { role: 'user', content: 'When is the next appointment?' }] }),
    );
    expect(env.temporalGate.checks.find((c: { id: string }) => c.id === 'upcoming_date')?.status).toBe('fail');
    expect(env.answer).toContain('2026-02-01');
    expect(env.answer).toContain('[2]');
    expect(env.answerValidation.originalAnswer).toBe('The next appointment is on 2026-02-01 [2].');
  });

  test.each([
    ['a unit', (big: string) => `Weight (kg): 71 ${big}`, (big: string) => `Weight was 71 ${big} on 2026-03-02 [2].`],
    ['a concept name', (big: string) => `Weight ${big}: 71 kg`, (big: string) => `Weight ${big} increased to 71 kg on 2026-03-02 [2].`],
  ])('a chart with %s of 200,000 characters, quoted back by the model, is gated, not a 500', async (_name, record, answer) => {
    const big = 'x'.repeat(200_000);
    const chart = ['Patient records (most recent first):', '[1] (2026-03-02) Encounter: Visit', `[2] (2026-03-02) Finding — ${record(big)}`, '[3] (2026-01-10) Finding — Height (cm): 158 cm'].join('\n');
    ctx.router.script({ content: reply(`${answer(big)} Height was 158 cm on 2026-03-02 [3].`) });
    const env = await envelopeOf(
      await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~enforce', messages: [{ role: 'user', content: chart }, { role: 'user', content: 'What are the latest weight and height?' }] }),
    );
    expect(env.temporalGate).toMatchObject({ schema_version: 'temporal_gate.v1', mode: 'enforce', status: 'fail' });
    expect(env.temporalGate.checks.map((c: { id: string }) => c.id)).toContain('date_value_binding');
  });

  test('the writer sees the temporal facts first in the shared context message', async () => {
    ctx.router.script({ content: reply(CORRECT) });
    await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~enforce', messages: messages('How has the weight changed?') });
    const prompt: string = ctx.router.chatRequests()[0].body.messages[0].content;
    expect(prompt.indexOf('"reference_date":"2026-03-10"')).toBeGreaterThan(-1);
    expect(prompt.indexOf('reference_date')).toBeLessThan(prompt.indexOf('Patient records (most recent first):'));
  });
});
