/** Token usage summed over every model call of a turn (decision 4). */
import type { Usage } from '../llm';

export function zeroUsage(): Usage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
}

export function addUsage(total: Usage, add: Usage): void {
  total.prompt_tokens += add.prompt_tokens;
  total.completion_tokens += add.completion_tokens;
  total.total_tokens = total.prompt_tokens + total.completion_tokens;
}
