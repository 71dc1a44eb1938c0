/** Facts-first citation grounding (§7.5 Target): pure helpers; the engine owns the model calls. */
export { applyGroundingChecks, checkOf, summariseSupport } from './apply';
export { runFactChecks, type FactCheckIO } from './batches';
export { literalTableFact, temporalPass } from './deterministic';
export { factCheckPrompt, groundingPairs, normaliseClaim, sourceLines } from './pairs';
export { deriveSupport, GROUNDING_RESPONSE_FORMAT, parseFactReply, statusOfSupport } from './verdicts';
export type { BatchRecord, CheckedFact, FactCheckItem, FactCheckResult, FactStatus, GroundingCheck, GroundingPair, Support } from './types';
