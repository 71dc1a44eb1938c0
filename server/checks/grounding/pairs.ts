/**
 * Claim groups (§7.5 step 1): each distinct claim is checked once against the COMBINED set of
 * records it cites, so a multi-citation sentence is judged on everything it leans on.
 */
import { CITATION_MARKER, type Reference } from '../../answer';
import type { FactCheckItem, GroundingPair } from './types';

/** Same marker grammar as references-usage (`[3]`, `[2, 3]`). */

/**
 * Claim text without `[N]` markers. Whitespace is normalised afterwards so removed markers leave
 * no double spaces or a space before punctuation (decision 21, §13.1 #17).
 */
export function normaliseClaim(text: string): string {
  return text
    .replace(CITATION_MARKER, ' ')
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?])/g, '$1')
    .trim();
}

/**
 * One pair per (location, path, normalised claim) over resolved references' usages in `locations`.
 * Order is first appearance (references in order, then their usages), so batches are stable.
 */
export function groundingPairs(refs: readonly Reference[], locations: readonly string[]): GroundingPair[] {
  const groups = new Map<string, { pair: GroundingPair; indices: Set<number> }>();
  for (const ref of refs) {
    // Unresolved references have no record to check against; they stay unchecked (§7.5).
    if (ref.resolutionStatus !== 'resolved') continue;
    for (const usage of ref.usage) {
      if (!locations.includes(usage.location)) continue;
      const claim = normaliseClaim(usage.text);
      const path = usage.path ?? '';
      const key = JSON.stringify([usage.location, path, claim]);
      let group = groups.get(key);
      if (!group) {
        group = { pair: { claim, location: usage.location, path, sourceIndices: [] }, indices: new Set() };
        groups.set(key, group);
      }
      group.indices.add(ref.index);
    }
  }
  return [...groups.values()].map(({ pair, indices }) => ({ ...pair, sourceIndices: [...indices].sort((a, b) => a - b) }));
}

/** `[i] <text>` per cited record; a record without text is left out rather than shown empty. */
export function sourceLines(indices: readonly number[], sourceText: (index: number) => string | null): string {
  const lines: string[] = [];
  for (const i of indices) {
    const text = sourceText(i);
    if (text !== null) lines.push(`[${i}] ${text}`);
  }
  return lines.join('\n');
}

/** The pairs block appended after the grounding instructions; numbering restarts in every batch. */
export function factCheckPrompt(items: readonly FactCheckItem[]): string {
  return items.map((item, i) => `PAIR ${i + 1}:\nSOURCE:\n${item.sources}\nSTATEMENT: ${item.statement}`).join('\n\n');
}
