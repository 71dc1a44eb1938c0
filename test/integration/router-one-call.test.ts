/**
 * ROUTER_MAX_CONCURRENCY=1 means one model call in flight as a one-slot llama.cpp router sees it
 * (issue 27 point 4). Eight concurrent blocking requests — four checked product turns on one model (each
 * asks its template probe and prompt count: requests that name the model without running it) and four
 * legs on another — beside discovery calls: the router never has two chats open, nor a request naming one
 * model while one naming another is open (in router mode that request would load the other model beside
 * the busy one). Requests naming no model (GET /v1/models) may arrive beside a chat: the router answers
 * them from its own registry without a slot (README, "One model call at a time"). The hub runs in its own
 * process so that the interleaving is its own, not this process's.
 */
import { scriptChecked } from '../support/checkers';
import { useRouterAndHubProcess } from '../support/hub-process';
import { postJson, SMALL_CHART } from '../support/hub';

const WRITER = 'gemma-4-12b';
const OTHER = 'qwen3.5-9b';
const QUESTION = 'How has the weight changed?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';

const request = (model: string) => ({ model, messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: QUESTION }] });

describe.each(['llama2', 'gemma4'] as const)('one model call in flight (%s template)', (template) => {
  const ctx = useRouterAndHubProcess({ models: [WRITER, OTHER], template, env: { ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '64', HUB_ANCHOR: '2026-03-10' } });

  test('4 checked turns and 4 legs on another model, with discovery beside them: one chat and one model at a time', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: [] });
    const sent = Array.from({ length: 8 }, (_, i) => (i % 2 ? request(`answer:${OTHER}~off~temp0`) : request('single-12b-checked')));
    const answers = Promise.all(sent.map((body) => postJson(`${ctx.hub.url}/v1/chat/completions`, body)));
    const listings = Promise.all(Array.from({ length: 4 }, (_, i) => fetch(`${ctx.hub.url}${i % 2 ? '/v1/hub/query-profiles' : '/v1/models'}`)));
    const replies = [...(await answers), ...(await listings)];

    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
    const bodies = await Promise.all(replies.slice(0, 8).map((r) => r.json() as Promise<any>));
    const product = bodies.filter((_, i) => i % 2 === 0).map((b) => JSON.parse(b.choices[0].message.content));
    expect(product.map((env) => env.answerValidation.status)).toEqual(Array(4).fill('checked'));

    const { ledger } = ctx.router;
    const asides = ctx.router.requests.filter((r) => r.method === 'POST' && !r.path.endsWith('/chat/completions'));
    expect(asides.length).toBeGreaterThanOrEqual(4); // every checked turn counted its Answer selection
    expect(ctx.router.chatRequests().length).toBeGreaterThan(8);
    expect(ledger.maxChats).toBe(1);
    expect(ledger.overlaps).toEqual([]);
    expect(ledger.maxModels).toBe(1);
  });
});
