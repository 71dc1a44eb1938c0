/**
 * The one seam for the In-Depth stage's "=== GATHERED KB / EVIDENCE ===" section (hub-contract §7.6): every
 * capability that gathers context for the In-Depth writer contributes one part here, in a fixed order, and
 * the In-Depth stage (and any reviewer that shows the section) reads only `gatheredEvidence(turn)`.
 * Parts are plain text derived from the turn; '' means "nothing gathered", and the section is then left out.
 * To add a part (e.g. a gather stage's expert notes), append one entry to PARTS.
 */
import { knowledgeGathered } from '../context';
import { gatheredNotes } from './gather/gathered';
import type { TurnState } from './types';

const PARTS: ReadonlyArray<(turn: TurnState) => string> = [
  // Knowledge-base guidance records and their non-citable notes, from the complete ledger.
  (turn) => knowledgeGathered(turn.context.ledger),
  // Team gather's expert notes (`Gathered evidence:\n\nClinical expert notes:\n…`), '' on other plans.
  (turn) => gatheredNotes(turn),
];

export function gatheredEvidence(turn: TurnState): string {
  return PARTS.map((part) => part(turn).trim()).filter((text) => text !== '').join('\n\n');
}
