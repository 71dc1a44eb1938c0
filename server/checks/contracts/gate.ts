/**
 * The product Answer's table and citation contracts (§7.2), run as the first `gate`: pure, plain
 * data in and out. Tables and citations live in their own modules; this one composes them.
 */
import type { AnswerDraft, TableBlock } from '../../answer';
import { applyCitationContract, canonicalizeCitationGroups } from './citations';
import { checkTable } from './tables';
import type { ContractIssue } from './issue';

export interface ContractGateResult {
  draft: AnswerDraft;
  changed: boolean;
  issues: ContractIssue[];
  blocksWithheld: number;
}

/**
 * Canonicalise grouped markers, then validate/repair tables, then apply the citation contract —
 * in that order, because withheld tables must not count as explicit citation usage and canonical
 * markers are what the citation contract reads. `changed` means a check edited the model's draft.
 * Reads `draft.blocks` as untrusted (callers pass the writer's raw blocks there); `declared` and
 * `rawBlocks` are returned as received, since they record what the writer sent.
 */
export function runContractGate(draft: AnswerDraft): ContractGateResult {
  const issues: ContractIssue[] = [];
  const canonical = canonicalizeCitationGroups(draft.answer);
  if (canonical.malformed.length > 0) {
    // Fail closed with one issue, as the In-Depth gate does (§6.4 step 4): a malformed marker's
    // intended source cannot be known, so the Answer cannot be shown as checked.
    issues.push({
      id: 'citation_format',
      status: 'fail',
      severity: 'block',
      reason: `Malformed citation markers: ${canonical.malformed.join(', ')}.`,
      source_indices: [...new Set(canonical.malformed.flatMap((m) => (m.match(/\d+/g) ?? []).map(Number)))].filter((n) => n > 0),
      claim: draft.answer.slice(0, 240),
    });
  }

  // `blocks` is typed, but a caller may hand over the writer's raw blocks; checkTable trusts nothing.
  const blocks: TableBlock[] = [];
  let blocksChanged = false;
  let blocksWithheld = 0;
  for (const [i, raw] of (draft.blocks as unknown[]).entries()) {
    const t = checkTable(raw, i);
    if (t.block) blocks.push(t.block);
    else blocksWithheld++;
    if (t.issue) issues.push(t.issue);
    if (t.repaired || !t.block) blocksChanged = true;
  }

  const cited = applyCitationContract({ answer: canonical.text, declared: draft.declared, blocks });
  if (cited.issue) issues.push(cited.issue);

  return {
    draft: {
      answer: cited.answer,
      citations: cited.citations,
      declared: [...draft.declared],
      blocks,
      rawBlocks: draft.rawBlocks,
      structured: draft.structured,
    },
    changed: canonical.changed || blocksChanged || cited.changed,
    issues,
    blocksWithheld,
  };
}
