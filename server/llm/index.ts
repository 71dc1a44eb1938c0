/**
 * The one model interface (a llama.cpp router or the embedded engine behind the same RouterClient), its
 * token counting, fit bounds and connection pools. The embedded engine is not re-exported: backend.ts
 * loads it only when configured (tens of MB).
 */
export type { BackendStatus } from './backend-status';
export { createModelBackend } from './backend';
export { createFitBounds, type AnswerAnchor, type FitBounds } from './fit-bound';
export { availability, backendInventory, type Availability } from './model-availability';
export { reframedChunks } from './reframe-stream';
export { createRouterClient } from './router-client';
export { transportCode } from './router-errors';
export { blockMessage, blockParts, prepareBody, SharedBlock } from './shared-block';
export { abortErrorFrom } from './slots';
export { createTokenCounter, loadLocalTokenizer, sortedKeyJson, type LocalTokenizer, type TokenCounter } from './tokens';
export type { CallOptions, ChatMessage, ChatRequest, ChatResult, ModelInventory, RouterClient, SlotEvidence, ToolCall, Usage } from './types';
export { closePool, Pool } from './undici-pool';
