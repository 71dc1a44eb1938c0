/** The fit slice's types (written by fit.ts; declared apart so the turn's type can name them). */
import type { PromptLayout } from '../../context';
import type { AnswerAnchor } from '../../llm';

export interface FitTurn {
  /** Per model, the layout its stages use in this turn (decided once, on the model's first stage). */
  layouts: Map<string, Promise<PromptLayout>>;
  /** The Answer's exact count on its context block; null until known, or when its layout gives no proof. */
  anchor: AnswerAnchor | null;
}

export function newFitTurn(): FitTurn {
  return { layouts: new Map(), anchor: null };
}

export interface FitProof {
  bound: number;
  /** `answer_count`: the Answer's exact count plus this stage's own bytes (decision 27); `bytes`: all its bytes (decision 24). */
  basis: 'answer_count' | 'bytes';
}
