/**
 * The `answer-review:` leg's input (§4.4, §7.3): an `answer_to_review.v1` object in the last user
 * message, sent by a caller that already has an Answer. Callers paste it raw, fenced, inside prose,
 * or wrapped as `{"answer_to_review": {…}}`; all are accepted, and anything without a string
 * `answer` is no payload (the review then reports `unavailable`).
 */
import { extractJsonObject, isJsonObject } from './json';

export const ANSWER_TO_REVIEW_SCHEMA = 'answer_to_review.v1';

export interface AnswerToReview {
  original_question: string;
  answer: string;
  citations: number[];
  blocks: unknown[];
}

export function parseAnswerToReview(text: string): AnswerToReview | null {
  const outer = extractJsonObject(text);
  if (!outer) return null;
  const obj = isJsonObject(outer.answer_to_review) ? outer.answer_to_review : outer;
  // A declared version we do not know may mean different fields; refuse rather than guess.
  if (obj.schema_version != null && obj.schema_version !== ANSWER_TO_REVIEW_SCHEMA) return null;
  if (typeof obj.answer !== 'string') return null;
  return {
    original_question: typeof obj.original_question === 'string' ? obj.original_question : '',
    answer: obj.answer,
    citations: Array.isArray(obj.citations) ? obj.citations.filter((n): n is number => Number.isInteger(n)) : [],
    blocks: Array.isArray(obj.blocks) ? obj.blocks : [],
  };
}
