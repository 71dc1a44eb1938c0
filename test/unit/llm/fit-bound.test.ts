/**
 * The decision-24 fit bound: sound only when the probe shows at least one byte per token, built from the
 * router's own template bytes, cached per model, and never a reason to fail a call (no proof → count).
 */
import { buildContextMessage, stageMessages } from '../../../server/context/layout';
import { createFitBounds, FIT_PROBE_TEXT, PROBE_RETRY_MS, spendsAByteAPiece } from '../../../server/llm/fit-bound';
import type { ChatRequest, RouterClient } from '../../../server/llm/types';
import { fakeApplyTemplate, fakeTokenize } from '../../support/fake-router';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const piecesOf = (s: string) => fakeTokenize(s).map((p) => Buffer.from(p, 'utf8'));

function stubRouter(over: { pieces?: (content: string) => Uint8Array[] | undefined; template?: (messages: ChatRequest['messages']) => string; fail?: 'tokenize' | 'template' } = {}) {
  const calls = { tokenize: 0, template: 0 };
  const router = {
    tokenize: async ({ content }: { content: string }) => {
      calls.tokenize++;
      if (over.fail === 'tokenize') throw new Error('404');
      const pieces = (over.pieces ?? piecesOf)(content);
      return { count: pieces?.length ?? fakeTokenize(content).length, pieces };
    },
    applyTemplate: async ({ messages }: { messages: ChatRequest['messages'] }) => {
      calls.template++;
      if (over.fail === 'template') throw new Error('404');
      return (over.template ?? fakeApplyTemplate)(messages as never);
    },
  } as unknown as RouterClient;
  return { router, calls };
}

const chat = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content }], ...extra });

describe('spendsAByteAPiece', () => {
  test.each([
    ['every piece has a byte', 3, [[1], [2, 3], [4]], 4, true],
    ['an empty piece (a token carrying no byte)', 3, [[1], [], [2]], 4, false],
    ['more tokens than bytes', 5, [[1], [1], [1], [1], [1]], 4, false],
    ['pieces missing', 3, undefined, 4, false],
    ['pieces and count disagree', 3, [[1], [2]], 4, false],
  ])('%s', (_name, count, pieces, total, verdict) => {
    expect(spendsAByteAPiece(count as number, (pieces as number[][] | undefined)?.map((p) => Uint8Array.from(p)), total as number)).toBe(verdict);
  });
});

describe('createFitBounds', () => {
  test('bound = template bytes around empty contents + content bytes + 2, and it holds against the exact count', async () => {
    const { router } = stubRouter();
    const fit = createFitBounds(router);
    const texts = ['', 'Weight 71 kg [1].', FIT_PROBE_TEXT, '\u00a0'.repeat(5000), '😀'.repeat(300), 'x\r\n'.repeat(2000)];
    for (const text of texts) {
      const req = chat(text);
      const bound = await fit.bound(req);
      expect(bound).toBe(bytes(fakeApplyTemplate([{ role: 'user', content: '' }] as never)) + bytes(text) + 2);
      expect(bound!).toBeGreaterThanOrEqual(fakeTokenize(fakeApplyTemplate(req.messages as never)).length);
    }
  });

  test('a stage message on a shared block is measured from its parts', async () => {
    const { router } = stubRouter();
    const block = buildContextMessage({ chart: '[1] (2026-03-02) Finding — Weight (kg): 71 kg' });
    const messages = stageMessages(block, { instructions: 'Answer as JSON.', history: [], question: 'Latest weight?' });
    const bound = await createFitBounds(router).bound({ model: 'm', messages });
    expect(bound).toBe(bytes(fakeApplyTemplate([{ role: 'user', content: '' }] as never)) + bytes(messages[0].content as string) + 2);
  });

  test('the probe and the template are asked once per model and role sequence', async () => {
    const { router, calls } = stubRouter();
    const fit = createFitBounds(router);
    await Promise.all([fit.bound(chat('a')), fit.bound(chat('b')), fit.bound(chat('c'))]);
    await fit.bound({ model: 'm', messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }] });
    await fit.bound({ ...chat('d'), model: 'other' });
    expect(calls).toEqual({ tokenize: 2, template: 3 });
  });

  test.each([
    ['a tokenizer with a token that carries no byte', { pieces: (c: string) => [...piecesOf(c), new Uint8Array(0)] }],
    ['a router without token pieces', { pieces: () => undefined }],
    ['a router without /tokenize', { fail: 'tokenize' as const }],
    ['a router without /apply-template', { fail: 'template' as const }],
  ])('no proof for %s', async (_name, over) => {
    expect(await createFitBounds(stubRouter(over).router).bound(chat('Weight 71 kg'))).toBeNull();
  });

  test.each([
    ['tools', { tools: [{ type: 'function' }] }],
    ['tool_choice', { tool_choice: 'auto' }],
    ['chat_template_kwargs', { chat_template_kwargs: { enable_thinking: false } }],
  ])('no proof when the request carries %s (the template would render more)', async (_name, extra) => {
    expect(await createFitBounds(stubRouter().router).bound(chat('Weight 71 kg', extra as Partial<ChatRequest>))).toBeNull();
  });

  test('no proof for non-text content; a failed probe is believed for a minute, then asked again', async () => {
    jest.useFakeTimers();
    try {
      let fail = true;
      const calls = { tokenize: 0 };
      const router = {
        tokenize: async ({ content }: { content: string }) => {
          calls.tokenize++;
          if (fail) throw new Error('router down');
          return { count: fakeTokenize(content).length, pieces: piecesOf(content) };
        },
        applyTemplate: async ({ messages }: { messages: ChatRequest['messages'] }) => fakeApplyTemplate(messages as never),
      } as unknown as RouterClient;
      const fit = createFitBounds(router);
      expect(await fit.bound({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] as never }] })).toBeNull();
      expect(await fit.bound(chat('x'))).toBeNull();
      fail = false;
      // A router without /tokenize is not asked once per call.
      expect(await fit.bound(chat('x'))).toBeNull();
      expect(calls.tokenize).toBe(1);
      jest.advanceTimersByTime(PROBE_RETRY_MS);
      expect(await fit.bound(chat('x'))).not.toBeNull();
      expect(calls.tokenize).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });
});
