/**
 * The orchestrator + `medical_expert` tool loop (hub-contract §4.4): at most three orchestrator calls;
 * each may ask the expert one question, whose note goes back to the orchestrator as the tool result
 * and into the gathered text. The loop never fails the turn: a router error, a malformed tool call
 * or a budget refusal stops it (reason `failed`, traced) and the turn goes on to synthesis with
 * whatever notes were gathered before. A client abort is not a loop failure: it propagates.
 */
import { HubError, InsufficientContextError } from '../../errors';
import type { ChatMessage, ChatResult, ToolCall } from '../../llm';
import { callModel } from '../budget';
import { recordStep, type TraceStep } from '../steps';
import type { EngineDeps, TurnState } from '../types';
import { assembleGathered } from './gathered';
import { expertRequest, orchestratorMessages, orchestratorRequest } from './requests';
import { parseExpertCall } from './tool';
import type { GatherStopReason, GatherTurn } from './types';

export const MAX_ITERATIONS = 3;
/** A note in the trace is cut here (§11.2: `note` ≤ 400). */
const TRACE_NOTE_CHARS = 400;

/** How a failed call is named in the trace: the budget guard's refusal, else the error's code. */
function failureOf(err: unknown): { outcome: string; error: string } {
  if (err instanceof HubError) return { outcome: err instanceof InsufficientContextError ? 'budget_exceeded' : 'router_error', error: err.code };
  return { outcome: 'router_error', error: err instanceof Error ? err.name : 'unknown' };
}

/** A model call of the loop: its result, or how it failed (the caller traces it); a client abort is rethrown. */
async function attempt(turn: TurnState, run: () => Promise<ChatResult>): Promise<ChatResult | { failed: { outcome: string; error: string } }> {
  try {
    return await run();
  } catch (err) {
    if (turn.signal.aborted) throw err;
    return { failed: failureOf(err) };
  }
}

/** The assistant's tool-call turn and the tool results, as the chat template expects them back. */
function toolTurn(content: string, calls: readonly ToolCall[], iteration: number, note: string): ChatMessage[] {
  const ids = calls.map((c, i) => c.id ?? `call_${iteration}_${i + 1}`);
  const assistant: ChatMessage = {
    role: 'assistant',
    content: content === '' ? null : content,
    tool_calls: calls.map((c, i) => ({ id: ids[i], type: 'function', function: { name: c.name, arguments: c.arguments } })),
  };
  // Only the first call is answered (parallel calls are turned off); a model that sends more is told so.
  const results = ids.map((id, i): ChatMessage => ({ role: 'tool', tool_call_id: id, content: i === 0 ? note : 'Not run: one consultation per step.' }));
  return [assistant, ...results];
}

/** The gathered text is dropped when even the mandatory records no longer fit beside it (reselect.ts). */
export function dropGathered(part: GatherTurn): void {
  part.text = '';
}

function finish(turn: TurnState, stopReason: GatherStopReason, extra: Record<string, unknown> = {}): void {
  const part = turn.gather;
  part.stopReason = stopReason;
  part.text = assembleGathered(part.notes);
  recordStep(turn, {
    role: 'gather',
    iterations: part.iterations,
    stop_reason: stopReason,
    expert_calls: part.notes.length,
    tools_offered: turn.profile.models.expert ? ['medical_expert'] : [],
    gathered_chars: part.text.length,
    ...extra,
  });
}

export async function runGatherLoop(turn: TurnState, deps: EngineDeps): Promise<void> {
  const part = turn.gather;
  // Without an expert model no tool is offered: an orchestrator call could change nothing the
  // Answer reads, so none is made.
  if (!turn.profile.models.expert) return finish(turn, 'no_tool_call');
  const messages = orchestratorMessages(turn, deps);
  for (let iteration = 1; iteration <= MAX_ITERATIONS; iteration++) {
    part.iterations = iteration;
    const body = orchestratorRequest(turn, deps, messages);
    const step: TraceStep = { role: 'orchestrator', iteration, model: body.model };
    recordStep(turn, step);
    const result = await attempt(turn, () => callModel(turn, deps, 'orchestrator', body));
    if ('failed' in result) {
      Object.assign(step, { tool_called: false, tool_calls: 0, ...result.failed });
      return finish(turn, 'failed', { error: result.failed.error });
    }
    const calls = result.toolCalls ?? [];
    Object.assign(step, { tool_called: calls.length > 0, tool_calls: calls.length, prompt_tokens: result.usage.prompt_tokens, completion_tokens: result.usage.completion_tokens });
    if (calls.length === 0) {
      step.outcome = 'final';
      return finish(turn, 'no_tool_call');
    }
    const parsed = parseExpertCall(calls[0]!);
    if (!parsed.ok) {
      Object.assign(step, { outcome: 'malformed_tool_call', error: parsed.error });
      return finish(turn, 'failed', { error: 'malformed_tool_call' });
    }
    step.outcome = 'tool_call';
    step.tool = calls[0]!.name;
    const request = expertRequest(turn, deps, parsed.query);
    const expertStep: TraceStep = { role: 'medical_expert', iteration, model: request.model, query: parsed.query.slice(0, TRACE_NOTE_CHARS) };
    recordStep(turn, expertStep);
    const expert = await attempt(turn, () => callModel(turn, deps, 'medical_expert', request));
    if ('failed' in expert) {
      Object.assign(expertStep, expert.failed);
      return finish(turn, 'failed', { error: expert.failed.error });
    }
    const note = expert.content.trim();
    Object.assign(expertStep, { outcome: note === '' ? 'empty_note' : 'note', note: note.slice(0, TRACE_NOTE_CHARS), prompt_tokens: expert.usage.prompt_tokens, completion_tokens: expert.usage.completion_tokens });
    if (note !== '') part.notes.push({ query: parsed.query, note });
    messages.push(...toolTurn(result.content, calls, iteration, note === '' ? 'The expert had no notes.' : note));
  }
  finish(turn, 'max_iterations');
}
