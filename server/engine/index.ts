/** The turn engine: walks a profile's compiled plan stage by stage (each stage owns one slice of the turn) and yields typed events. */
export { assertRunnable, createTurn } from './run';
export { lateFailureEnvelope, runProductTurn } from './product';
export { blockingEnvelope, drainTurn } from './drain';
export { doneEvent, errorEvent } from './events';
export { noteShutdown } from './slices/outcome';
export type { ChatCompletionRequest, EngineDeps, TurnState } from './types';
