/**
 * Team gather (hub-contract §4.4, `topology: team`): the one door of the capability. The gather
 * stage runs the orchestrator + medical-expert tool loop, then re-selects the Answer's context with
 * the gathered text accounted. Its part of the turn is `turn.gather`; other stages read the expert
 * notes only through `gatheredNotes` (the Answer) and `gatheredEvidence` (engine/gathered.ts, In-Depth).
 */
import type { EngineDeps, TurnState } from '../types';
import { runGatherLoop } from './loop';
import { reselectAnswerContext } from './reselect';

export { newGatherTurn, type GatherTurn, type GatherStopReason } from './types';
export { MAX_ITERATIONS } from './loop';
export { EXPERT_TOOL, EXPERT_TOOL_NAME } from './tool';

export async function gather(turn: TurnState, deps: EngineDeps): Promise<void> {
  await runGatherLoop(turn, deps);
  await reselectAnswerContext(turn, deps);
}
