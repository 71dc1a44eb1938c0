import OpenAI from 'openai';
import { FakeRouter } from '../support/fake-router';
import { SMALL_CHART, startTestHub } from '../support/hub';
import type { RunningHub } from '../../server/main';

const LEG = 'answer:gemma-4-12b@synthesis-chartsearchai~off~temp0';
const ANSWER = JSON.stringify({ answer: 'Weight is 71 kg [2].', citations: [2], blocks: [] });

describe('the official openai client against the hub', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  let client: OpenAI;

  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    router.script({ content: ANSWER });
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl });
    client = new OpenAI({ baseURL: `${hub.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });

  const messages = [
    { role: 'user' as const, content: SMALL_CHART },
    { role: 'user' as const, content: 'What is the latest weight?' },
  ];

  test('lists models', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain('single-12b-bare');
  });

  test('completes a leg, blocking', async () => {
    const completion = await client.chat.completions.create({ model: LEG, messages });
    expect(JSON.parse(completion.choices[0].message.content ?? '')).toMatchObject({ answer: 'Weight is 71 kg [2].', citations: [2] });
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  test('completes a leg, streaming', async () => {
    const stream = await client.chat.completions.create({ model: LEG, messages, stream: true });
    let content = '';
    for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? '';
    expect(JSON.parse(content).citations).toEqual([2]);
  });

  test('an unknown model surfaces as a NotFoundError with the hub code', async () => {
    await expect(client.chat.completions.create({ model: 'nope', messages })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });
});
