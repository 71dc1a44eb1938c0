/**
 * Fake-router scripts that can cross a process boundary (JSON): a ScriptedReply without functions, plus
 * `match.stream` (answer only streamed or only blocking requests) and `replyWith` (a named checker).
 */
import type { ScriptedReply } from '../../test/support/fake-router';

export interface BenchScript extends Omit<ScriptedReply, 'match' | 'reply'> {
  match?: { contains?: string; model?: string; path?: string; stream?: boolean };
  /** 'all_found': a fact checker that marks every asked statement `found` (test/support/checkers.ts). */
  replyWith?: 'all_found';
}
