/**
 * The one tool the orchestrator may call (`medical_expert`) and the reading of its calls. A call
 * that names another tool or whose arguments are not `{"query": "<non-empty text>"}` is malformed:
 * the loop stops on it (reason `failed`) rather than guessing what the model meant.
 */
import type { ToolCall } from '../../llm';

export const EXPERT_TOOL_NAME = 'medical_expert';

/** Longest query passed on to the expert: a runaway argument must not flood the expert's prompt. */
const MAX_QUERY_CHARS = 2000;

export const EXPERT_TOOL = Object.freeze({
  type: 'function',
  function: {
    name: EXPERT_TOOL_NAME,
    description:
      "Consult a clinical expert model about this patient. The expert reads the same numbered evidence and answers one focused clinical question, citing records as [N]. Use it only when clinical interpretation beyond the chart's plain facts would help answer the clinician's question.",
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'One focused clinical question for the expert, in plain language.' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
});

export type ParsedCall = { ok: true; query: string } | { ok: false; error: string };

export function parseExpertCall(call: ToolCall): ParsedCall {
  if (call.name !== EXPERT_TOOL_NAME) return { ok: false, error: call.name === '' ? 'tool call without a function name' : `unknown tool '${call.name.slice(0, 80)}'` };
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return { ok: false, error: 'tool arguments are not JSON' };
  }
  const query = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as { query?: unknown }).query : undefined;
  if (typeof query !== 'string' || query.trim() === '') return { ok: false, error: "tool arguments lack a non-empty 'query'" };
  return { ok: true, query: query.trim().slice(0, MAX_QUERY_CHARS) };
}
