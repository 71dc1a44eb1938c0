/** Team gather's part of the turn (`turn.gather`): written only by the gather stage, read through `gatheredText`. */

/** Why the orchestrator loop stopped (trace `gather.stop_reason`). */
export type GatherStopReason = 'no_tool_call' | 'max_iterations' | 'failed';

export interface ExpertNote {
  /** The orchestrator's question to the expert. */
  query: string;
  note: string;
}

export interface GatherTurn {
  /** Expert notes in the order the orchestrator asked for them (kept when a later iteration fails). */
  notes: ExpertNote[];
  /** The assembled text the Answer and In-Depth read; '' when nothing was gathered. */
  text: string;
  /** Set once the loop ran: how many orchestrator calls it made and why it stopped. */
  stopReason: GatherStopReason | null;
  iterations: number;
}

export function newGatherTurn(): GatherTurn {
  return { notes: [], text: '', stopReason: null, iterations: 0 };
}
