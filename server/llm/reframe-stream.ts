/**
 * OpenAI chunks re-framed from `chatStream` pieces, for a backend that cannot hand out its own chunks
 * (the embedded engine): one chunk per delta as it arrives, then the finish chunk, the usage chunk when
 * asked for, and `[DONE]` — the same sequence llama-server writes. Here in llm/ because the backend map
 * needs it too: a map's chunk stream for a model on the embedded engine is re-framed the same way.
 */
import { completionId } from '../wire';
import type { CallOptions, ChatRequest, RouterClient } from './types';

export async function* reframedChunks(router: RouterClient, req: ChatRequest, opts: CallOptions, includeUsage: boolean): AsyncGenerator<string> {
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ id, object: 'chat.completion.chunk', created, model: req.model, choices, ...extra });
  let first = true;
  for await (const piece of router.chatStream(req, opts)) {
    if (first) {
      first = false;
      yield chunk([{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }]);
    }
    if (piece.kind === 'delta') {
      yield chunk([{ index: 0, delta: { content: piece.content }, finish_reason: null }]);
      continue;
    }
    const { usage, finishReason } = piece.result;
    yield chunk([{ index: 0, delta: {}, finish_reason: finishReason ?? 'stop' }]);
    if (includeUsage) yield chunk([], { usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
    yield '[DONE]';
  }
}
