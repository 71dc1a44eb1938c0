/** The turn's context: sources (inline chart, querystore, knowledge base) into one evidence ledger, selected and laid out for each prompt. */
export { SourceRegistry } from './registry';
export type { ContextSource } from './source';
export { emptyLedger, type EvidenceLedger, type EvidenceRecord } from './types';
export { selectContext } from './selector';
export { isMandatory } from './ranking';
export { renderLedger, renderRecordLine } from './render';
export { contextSummary, type ContextViewSummary } from './context-view';
export { fitHistory, stripPriorCitations } from './history';
export { contentText, extractChart, type ChatMessageLike } from './inline-chart';
export { buildContextMessage, commonPrefix, stageMessages, type PromptLayout } from './layout';
// The sources main.ts registers, and what the knowledge layer's in-process source shares with the engine.
export { inlineSource } from './sources/inline';
export { createQuerystore } from './sources/querystore';
export { explainKnowledgeBudgetFailure, KNOWLEDGE_PRIORITY, KNOWLEDGE_SOURCE_NAME, knowledgeGathered, NOTES_HEADER } from './sources/knowledge-base';
