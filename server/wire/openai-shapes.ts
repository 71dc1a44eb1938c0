/** OpenAI wire shapes the hub answers with: `chat.completion` and the synthetic chunk stream (§2.1, §3.2). */
import { randomUUID } from 'node:crypto';
/** The token counts of a model call (structurally `llm/types` Usage, which sits on a higher floor). */
type Usage = { prompt_tokens: number; completion_tokens: number };

/** `chatcmpl-` + 32 hex digits: a v4 UUID's (122 random bits), from Node's buffered entropy, not a fresh read per id. */
export function completionId(): string {
  const u = randomUUID();
  return `chatcmpl-${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`;
}

export function chatCompletion(model: string, content: string, usage: Usage, id = completionId(), created = Math.floor(Date.now() / 1000)) {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** The three chunks and `[DONE]` of a non-staged stream, each as one SSE frame. */
export function chunkFrames(model: string, content: string, usage: Usage | null, id = completionId(), created = Math.floor(Date.now() / 1000)): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const frames = [chunk({ role: 'assistant' }, null), chunk({ content }, null), chunk({}, 'stop')];
  if (usage) {
    const u = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    frames.push(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: u })}\n\n`);
  }
  frames.push('data: [DONE]\n\n');
  return frames;
}
