/**
 * Product turns end honestly whatever happens (§3.3, decisions 2 and 3): a failure after the Answer
 * was shown keeps that Answer with its checks settled; a failure before any Answer ends in a
 * fallback `done` that carries every envelope key; a context or request error before any Answer ends a
 * stream with `event: error` (a blocking request gets the HTTP error). A cancelled turn just stops.
 */
import { VALIDATION_LABELS, type EngineEvent, type EnvelopeConfidence, type ProductEnvelope } from '../answer';
import { ContextError, HubError, isAbortError, ModelUnavailableError } from '../errors';
import { productEnvelope } from './envelope';
import { runTurn } from './run';
import { failureConfidence } from './findings';
import { notePipelineError } from './slices/outcome';
import { FALLBACK_ANSWER } from './substance';
import { doneEvent, errorEvent } from './events';
import type { EngineDeps, TurnState } from './types';

const NOT_GENERATED = 'In-Depth was not generated.';

/** The last emitted Answer, restored and settled: red, needs_review, In-Depth not generated. */
export function lateFailureEnvelope(turn: TurnState, now: Date = new Date()): ProductEnvelope {
  const env = structuredClone(turn.answer.lastEmitted!) as Record<string, any>;
  env.answerValidation = { ...env.answerValidation, status: 'needs_review', label: VALIDATION_LABELS.needs_review, completedAt: now.toISOString() };
  const confidence: EnvelopeConfidence = { answer: { level: 'red', note: 'The hub could not safely complete the remaining checks.' } };
  if ('inDepth' in env) {
    const gate = env.inDepth?.validation ?? null;
    env.inDepth = { status: 'needs_review', answer: '', error: NOT_GENERATED, validation: gate };
    confidence.in_depth = { level: 'red', note: NOT_GENERATED };
  }
  env.confidence = failureConfidence(turn, confidence);
  return env as ProductEnvelope;
}

/** Failure before any Answer: the fallback, with every envelope key (§13.1 #3 fixed). */
export function preAnswerFallback(turn: TurnState, now: Date = new Date()): ProductEnvelope {
  const env: ProductEnvelope = {
    ...productEnvelope(turn),
    answer: FALLBACK_ANSWER,
    references: [],
    blocks: [],
    confidence: failureConfidence(turn, { answer: { level: 'red', note: 'The hub could not produce a checked answer for this turn.' } }),
    answerValidation: {
      status: 'needs_review',
      label: VALIDATION_LABELS.needs_review,
      summary: 'The hub could not safely complete the configured stages.',
      issues: turn.validation.issues,
      completedAt: now.toISOString(),
    },
    temporalGate: { schema_version: 'temporal_gate.v1', mode: turn.temporal.mode, status: 'not_applicable', checks: [], patch_answer: null, patch_citations: [], applied: 'fallback' },
  };
  // The drug-safety keys come from productEnvelope: checks never ran for an Answer, and the result says so.
  if (turn.profile.stages.includes('indepth')) env.inDepth = { status: 'failed', answer: '', error: NOT_GENERATED, validation: null };
  return env;
}

export interface ProductRunOptions {
  /** `stream`: context errors become `event: error`; `block`: an early context error is thrown (HTTP). */
  adapter: 'stream' | 'block';
}

export async function* runProductTurn(turn: TurnState, deps: EngineDeps, opts: ProductRunOptions): AsyncGenerator<EngineEvent> {
  try {
    yield* runTurn(turn, deps);
  } catch (err) {
    if (turn.signal.aborted || isAbortError(err)) throw err;
    notePipelineError(turn, err instanceof HubError ? err.code : err instanceof Error ? err.name : 'unknown');
    const answered = turn.answer.lastEmitted !== null;
    // Before any Answer, a context error or a request the hub cannot serve (a chart over the record
    // limit) is said as what it is: an HTTP error, or `event: error`. After an Answer was shown, every
    // failure keeps that Answer with its checks settled (decisions 2 and 3): nothing is left pending.
    // A model the backend cannot serve at all (no such model, a failed load) is said too, with what to do.
    const requestError = err instanceof HubError && ((err.status >= 400 && err.status < 500) || err instanceof ModelUnavailableError);
    if (!answered && (err instanceof ContextError || requestError)) {
      if (opts.adapter === 'block') throw err;
      yield errorEvent(err);
      return;
    }
    yield doneEvent(answered ? lateFailureEnvelope(turn) : preAnswerFallback(turn));
  }
}
