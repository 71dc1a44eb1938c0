/** Facts-first citation grounding (§7.5 Target): pure helpers; the engine owns the model calls. */
export * from './types';
export * from './verdicts';
export * from './pairs';
export * from './deterministic';
export * from './batches';
export * from './apply';
