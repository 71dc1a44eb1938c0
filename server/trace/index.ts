/** The per-turn trace: one sanitised JSON line per turn, written by one sequential writer. */
export { outcomeOfEvent, turnTrace, type TurnOutcome } from './turn-trace';
export { TraceWriter, type TraceSink } from './writer';
