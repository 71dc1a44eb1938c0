/**
 * The product turn the Ops benchmarks send: a synthetic chart in the ChartSearchAI layout, one question,
 * and fake-router scripts whose Answer, In-Depth claims and checker replies pass the hub's checks cleanly
 * (so every turn runs its whole plan, none takes a repair or fallback path).
 */
import { CLEAN_INDEPTH_REVIEW, CLEAN_REVIEW, MARK } from '../../test/support/checkers';
import { syntheticChart } from '../../test/support/synthetic-chart';
import type { BenchScript } from './scripts';

export const MODEL = 'gemma-4-12b';
export const QUESTION = 'What is the latest weight?';
/** Record [1] of syntheticChart: 2026-03-01, weight 55 kg; [2]: Metformin 500 mg order, same day. */
export const ANSWER = JSON.stringify({ answer: 'The latest weight is 55 kg, recorded on 2026-03-01 [1].', citations: [1], blocks: [] });
export const CLAIMS = JSON.stringify({ claims: ['Metformin 500 mg was ordered on 2026-03-01 [2].'] });

export function productChart(records: number): string {
  return `Patient records (most recent first):\n${syntheticChart(records)}`;
}

export function productRequest(model: string, records: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content: productChart(records) }, { role: 'user', content: QUESTION }], ...extra };
}

/** `content` split into `n` nearly equal stream deltas. */
export function splitInto(content: string, n: number): string[] {
  const size = content.length / n;
  return Array.from({ length: n }, (_, i) => content.slice(Math.round(i * size), Math.round((i + 1) * size)));
}

/**
 * Replies for every call of a product turn, first match wins (as in test/support/checkers.ts
 * scriptChecked): grounding, In-Depth review, answer review, In-Depth, then the Answer. `pace` is merged
 * into the In-Depth and Answer replies (e.g. `{ delayMs }`).
 */
export function productScripts(pace: { answer?: Partial<BenchScript>; inDepth?: Partial<BenchScript> } = {}): BenchScript[] {
  return [
    { match: { contains: MARK.grounding }, replyWith: 'all_found' },
    { match: { contains: MARK.inDepthReview }, content: CLEAN_INDEPTH_REVIEW },
    { match: { contains: MARK.answerReview }, content: CLEAN_REVIEW },
    { match: { contains: MARK.inDepth }, content: CLAIMS, ...pace.inDepth },
    { content: ANSWER, ...pace.answer },
  ];
}
