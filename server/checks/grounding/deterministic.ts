/**
 * Checks that need no model (§7.5 step 2, §12 *Grounding*). Both are deliberately narrow: a
 * shortcut that wrongly says "verified" is worse than a model call, so anything short of an
 * exact match falls through to the checker.
 */
import { normaliseClaim } from './pairs';
import type { GroundingPair } from './types';

/** Words that flip a meaning; a claim may not carry one the record value lacks. */
const NEGATIONS = new Set(['no', 'not', 'without', 'denies', 'negative']);
/** A citation prefix such as `[3]` or `[3]:` before the cell value. */
const CITATION_PREFIX = /^\s*\[\s*\d+(?:\s*,\s*\d+)*\s*\]\s*[:\-–]?\s*/;

function literal(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^a-z0-9']+/).filter((w) => w !== ''));
}

/** The record's literal values: its date and the text after its last colon (whole text without one). */
function recordValues(record: { date: string | null; text: string }): string[] {
  const values: string[] = [];
  if (record.date) values.push(record.date);
  const colon = record.text.lastIndexOf(':');
  values.push(colon >= 0 ? record.text.slice(colon + 1) : record.text);
  return values.map(literal).filter((v) => v !== '');
}

/**
 * A table cell that literally repeats its single record's date or value. Whole-string equality
 * keeps "5" from matching "15 mg"; several sources are never shortcut because conflicting cells
 * need a judgement about which record the value came from.
 */
export function literalTableFact(pair: GroundingPair, record: { date: string | null; text: string } | null): boolean {
  if (pair.path === '' || record === null) return false;
  if (new Set(pair.sourceIndices).size !== 1) return false;
  const claim = literal(normaliseClaim(pair.claim.replace(CITATION_PREFIX, '')));
  if (claim === '') return false;
  const claimWords = words(claim);
  return recordValues(record).some((value) => {
    if (value !== claim) return false;
    // Redundant under exact equality today, but it keeps negation from ever being bypassed
    // should the comparison be loosened.
    const valueWords = words(value);
    return [...claimWords].every((w) => !NEGATIONS.has(w) || valueWords.has(w));
  });
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((i) => y.has(i));
}

/**
 * A claim that a passing temporal check already proved on exactly the same records. A larger claim
 * or a different source set is not covered: the temporal check only vouched for its own words.
 */
export function temporalPass(
  pair: GroundingPair,
  passingChecks: ReadonlyArray<{ claim: string; source_indices: number[] }>,
): boolean {
  const claim = normaliseClaim(pair.claim);
  if (claim === '') return false;
  return passingChecks.some((c) => normaliseClaim(c.claim) === claim && sameSet(c.source_indices, pair.sourceIndices));
}
