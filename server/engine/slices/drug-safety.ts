/** Drug safety's slice type and its "not run yet" state (written by stages/drug-safety.ts; declared apart so the turn's type can name it). */
import { unavailableResult, type DrugSafetyResult, type PreparedDrugSafety } from '../../checks/drug-safety';

export interface DrugSafetyTurn {
  /** Exposure and references of this turn, once the context stage prepared them. */
  prepared: PreparedDrugSafety | null;
  /** The result every envelope carries: "not run yet" until the checks ran. */
  result: DrugSafetyResult;
  /** The checks ran for the Answer (they run once per turn). */
  checked: boolean;
}

export const NOT_RUN = { id: 'checks_not_run', reason: 'The drug-safety checks did not run for this turn (no Answer was checked).' };

export function newDrugSafetyTurn(): DrugSafetyTurn {
  return { prepared: null, result: unavailableResult(null, [NOT_RUN]), checked: false };
}
