/** `@med-agent-hub/client`: a typed client for Med Agent Hub (README.md). */
export { MedAgentHub, type ClientOptions, type RoleCallOptions } from './client.js';
export { StagedStream } from './stream.js';
export { ENVELOPE_EVENT_NAMES, stagedEventOf, type EnvelopeEvent, type EnvelopeEventName, type ErrorEvent, type StagedEvent, type StagedEventName } from './staged.js';
export { SseDecoder, type SseFrame } from './sse.js';
export { ENVELOPE_KEY_SHAPES, type KeyShape } from './envelope-keys.js';
export * from './envelope.js';
export * from './errors.js';
export * from './types.js';
export {
  canonicalDigest, sha256Hex, verifyProfileEvidence, verifyRequestEvidence,
  type CatalystRole, type QueryProfile, type QueryProfilesDocument, type RequestEvidence, type RoleEvidence, type RoleRequest, type RoleResult,
} from './catalyst.js';
export type {
  AnswerRequest, AnswerResponse, ContextMku, ContextRequest, ContextResponse, PatientContext, RetrieveRequest, RetrieveResponse, RetrieveStreamEvent,
} from './knowledge.js';
