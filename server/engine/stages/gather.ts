/** `gather` stage (team profiles): the orchestrator tool loop and the Answer's context re-selection (engine/gather). */
import { gather } from '../gather';
import type { Stage } from '../types';

export const gatherStage: Stage = {
  name: 'gather',
  run: (turn, deps) => gather(turn, deps),
};
