/**
 * The turn's review slice (`turn.review`): what the model checks concluded — the label-only review of
 * the Answer, the In-Depth review, and the second writer's agreement. Written only here; the review,
 * indepth and agree stages call the named writers below.
 */
import type { Agreement } from '../../answer';
import type { Writable } from './writable';


export interface AnswerReviewState {
  status: 'checked' | 'needs_review' | 'unavailable';
  /** The reviewer's raw `pairs` (folded grounding), when it sent any. */
  foldedPairs: unknown;
  /** The Answer pairs the reviewer was asked to judge (folded grounding), in prompt order. */
  pairs: ReadonlyArray<{ claim: string; location: string; path: string; sourceIndices: number[] }>;
}

export interface InDepthReviewState {
  status: 'clean' | 'flagged' | 'unavailable';
  /** Claim number (1-based) → the reviewer's note. */
  notes: ReadonlyMap<number, string>;
}

export interface ReviewSlice {
  /** The label-only model review of the Answer (§7.3 Target), once the review stage ran. */
  readonly answer: AnswerReviewState | null;
  /** The one In-Depth review (§7.7 Target): which claims the reviewer flagged. */
  readonly inDepth: InDepthReviewState | null;
  /** The second writer's agreement check (§7.9), once the agree stage ran. */
  readonly agreement: Agreement | null;
}

type HasReview = { readonly review: ReviewSlice };

export function newReviewSlice(): ReviewSlice {
  return { answer: null, inDepth: null, agreement: null };
}

function own(turn: HasReview): Writable<ReviewSlice> {
  return turn.review;
}

export function noteAnswerReview(turn: HasReview, review: AnswerReviewState): void {
  own(turn).answer = review;
}

export function noteInDepthReview(turn: HasReview, review: InDepthReviewState): void {
  own(turn).inDepth = review;
}

export function noteAgreement(turn: HasReview, agreement: Agreement): void {
  own(turn).agreement = agreement;
}
