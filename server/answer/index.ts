/** The one typed answer model: the draft and its tables, references, the citation parser, the envelopes and their schemas, engine events. */
export { CITATION_MARKER, citationMarkers, markerIndices } from './citations';
export { ENVELOPE_SCHEMAS } from './envelope-schema';
export type {
  Agreement,
  AgreementClaim,
  AgreementClaimStatus,
  AnswerValidation,
  BlockingProductEnvelope,
  DrugSafetyKeys,
  EnvelopeConfidence,
  InDepthSection,
  InDepthValidationWire,
  Issue,
  LegEnvelope,
  ProductEnvelope,
  ShippedConfidence,
  TurnConfidence,
} from './envelope';
export { isTerminal, type DoneEvent, type EngineEvent, type ErrorEvent, type ErrorEventData, type ResultEvent, type StagedEvent, type StagedEventName, type StreamEvent } from './events';
export { citationsFromReferences, cloneReference, groundingFromChecks, mergeReferences, type Reference, type ReferenceUsage, type Support, type UsageLocation } from './references';
export type { AnswerDraft, ConfidenceLevel, TableBlock, TableCell } from './types';
export { VALIDATION_LABELS, type ValidationStatus } from './validation';
