/**
 * Fake-router scripts that can cross a process boundary (JSON): a ScriptedReply without functions, plus
 * `match.stream` (answer only streamed or only blocking requests) and `replyWith` (a named reply function).
 */
import type { ScriptedReply } from '../../test/support/fake-router';

export interface BenchScript extends Omit<ScriptedReply, 'match' | 'reply'> {
  match?: { contains?: string; model?: string; path?: string; stream?: boolean };
  /**
   * 'all_found': a fact checker that marks every asked statement `found` (test/support/checkers.ts).
   * 'hostile': the fuzz suite's hostile model output (test/support/fuzz/model-output.ts hostileReply) for
   * the cases of `hostile` (the corpus buildCases makes from that seed and scale).
   */
  replyWith?: 'all_found' | 'hostile';
  hostile?: { seed: number; scale: number };
}
