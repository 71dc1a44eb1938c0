import path from 'node:path';
import { loadConfig } from '../../../server/config';
import { buildContextMessage, stageMessages } from '../../../server/context/layout';
import { callModel, useTokenCounter } from '../../../server/engine/budget';
import { createTurn } from '../../../server/engine/run';
import type { EngineDeps } from '../../../server/engine/types';
import type { ChatRequest, RouterClient } from '../../../server/llm/types';
import type { TokenCounter } from '../../../server/llm/tokens';
import { loadCatalog } from '../../../server/profiles/catalog';
import { fakeTokenize } from '../../support/fake-router';

const ROOT = path.resolve(__dirname, '../../..');
const catalog = loadCatalog({ profilesPath: path.join(ROOT, 'profiles/levels.yaml'), promptsDir: path.join(ROOT, 'prompts') });
const chart = Array.from({ length: 365 }, (_, i) => `[${i + 1}] (2026-01-0${1 + (i % 9)}) Finding — Weight (kg): ${50 + (i % 30)} kg`).join('\n');
const context = buildContextMessage({ chart });
const request = (instructions: string): ChatRequest => ({ model: 'gemma-4-12b', messages: stageMessages(context, { instructions, history: [], question: 'How has the weight changed?' }) });

function fakeCounter(): TokenCounter {
  const text = (req: { messages: Array<{ content: unknown }> }) => req.messages.map((m) => String(m.content)).join('\n');
  return {
    countChat: async (req) => fakeTokenize(text(req)).length,
    knownChatCount: () => undefined,
    countRecords: async (_m, texts) => texts.map((t) => fakeTokenize(t).length),
    count: async (_m, t) => fakeTokenize(t).length,
    stats: () => ({ http_requests: 0, chat_counts_performed: 0, chat_cache_hits: 0, chat_count_mode: null, cached_prompt_counts: 0, record_cost_calls: 0 }),
  };
}

describe('prefix share of later stages (decision 8)', () => {
  test('a product-shaped sequence of calls records ≥ 90% of each later prompt as the Answer prefix', async () => {
    const router = { chat: async () => ({ content: '{}', finishReason: 'stop', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, model: null, queueWaitMs: 0, routerMs: 0 }) } as unknown as RouterClient;
    const deps = { config: loadConfig({}, ROOT), router, catalog } as unknown as EngineDeps;
    const turn = createTurn({ model: 'eval-12b-answer-only', messages: [{ role: 'user', content: 'q' }] }, catalog.get('eval-12b-answer-only')!, new AbortController().signal);
    useTokenCounter(turn, fakeCounter);
    await callModel(turn, deps, 'answer', request('Answer from the numbered records as JSON.'));
    await callModel(turn, deps, 'review', request('Review this draft against the records.\n=== DRAFT ANSWER ===\nWeight fell [3][2].'));
    await callModel(turn, deps, 'indepth', request('Add 1-3 atomic claims.\n=== DIRECT ANSWER ===\nWeight fell [3][2].'));
    expect(turn.accounting.prefixShares.map((p) => p.stage)).toEqual(['review', 'indepth']);
    for (const share of turn.accounting.prefixShares) {
      expect(share.ratio).toBeGreaterThanOrEqual(0.9);
      expect(share.shared_prefix_tokens).toBeLessThanOrEqual(share.prompt_tokens);
    }
    expect(turn.accounting.budgets.map((b) => b.stage)).toEqual(['answer', 'review', 'indepth']);
  });
});
