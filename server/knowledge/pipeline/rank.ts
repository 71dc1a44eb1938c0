/**
 * Stage 3, ranking and the review gate (§1.3): `score = w_cosine·cos + w_overlap·overlap + w_intersection·[R2]`,
 * where overlap counts the query concepts that TRIGGER the MKU. Ties break on the MKU id so the order is
 * deterministic. The review gate then keeps reviewed MKUs only, unless `include_unreviewed` (already
 * refused upstream when the deployment does not allow it), which keeps them tagged `unreviewed`.
 */
import type { Candidate } from './retrieval';

export interface RankWeights {
  w_cosine: number;
  w_overlap: number;
  w_intersection: number;
}

export interface RankInput {
  cosine: number;
  overlap: number;
  r2: boolean;
}

export function rankScore(c: RankInput, w: RankWeights): number {
  return w.w_cosine * c.cosine + w.w_overlap * c.overlap + w.w_intersection * (c.r2 ? 1 : 0);
}

/** Overlap of a candidate: the query concepts reaching it (an R1_concept hit counts at least one). */
export function overlapOf(c: Candidate): number {
  return Math.max(c.queryConcepts.size, c.paths.has('R1_concept') ? 1 : 0);
}

export interface Ranked {
  candidate: Candidate;
  score: number;
}

export function byScoreThenId(a: { score: number; id: string }, b: { score: number; id: string }): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function rankCandidates(candidates: Iterable<Candidate>, w: RankWeights): Ranked[] {
  const ranked = [...candidates].map((candidate) => ({ candidate, score: round(rankScore({ cosine: candidate.cosine, overlap: overlapOf(candidate), r2: candidate.r2 }, w)), id: candidate.mku.id }));
  ranked.sort(byScoreThenId);
  return ranked.map(({ candidate, score }) => ({ candidate, score }));
}

/** The review gate: what passes, and how many unreviewed MKUs were held back. */
export function reviewGate<T>(items: T[], reviewed: (item: T) => boolean, includeUnreviewed: boolean): { kept: T[]; held: number } {
  if (includeUnreviewed) return { kept: items, held: 0 };
  const kept = items.filter(reviewed);
  return { kept, held: items.length - kept.length };
}

/** Scores on the wire are rounded so float noise never reorders equal arithmetic. */
export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
