/**
 * The context floor's side of the `knowledge-base` source: how its records are named in a ledger, the In-Depth
 * stage's view of them, and what a budget failure says of them. The source itself (the `/v2/context` call and
 * the MKU → record mapping) belongs to the knowledge layer: `server/knowledge/context-source/`, registered by
 * main.ts, so the context floor never imports the knowledge layer.
 */
import { InsufficientContextError } from '../../../errors';
import type { EvidenceLedger } from '../../types';
import { KNOWLEDGE_SOURCE_NAME } from './names';

export { KNOWLEDGE_PRIORITY, KNOWLEDGE_SOURCE_NAME, NOTES_HEADER } from './names';
export { knowledgeGathered } from './gathered';

/**
 * A budget failure whose mandatory evidence includes knowledge-base safety records names them (never dropped
 * silently, knowledge-layer.md §6.4); any other error passes through unchanged.
 */
export function explainKnowledgeBudgetFailure(err: unknown, ledger: EvidenceLedger): unknown {
  if (!(err instanceof InsufficientContextError)) return err;
  const mandatory = new Set(Array.isArray(err.extra.mandatory_ids) ? (err.extra.mandatory_ids as string[]) : []);
  const kb = ledger.records.filter((r) => r.source === KNOWLEDGE_SOURCE_NAME && mandatory.has(r.stableId));
  if (kb.length === 0) return err;
  const named = kb.map((r) => `${r.stableId}${typeof r.metadata.title === 'string' ? ` (${r.metadata.title})` : ''}`);
  return err.derive({
    message: `${err.message} The mandatory evidence includes knowledge-base safety guidance ${named.join(', ')}, which cannot be left out.`,
    extra: { ...err.extra, knowledge_references: kb.map((r) => r.stableId) },
  });
}
