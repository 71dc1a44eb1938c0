/** Assembly of the gathered text (hub-contract §4.4): the expert notes under their fixed headings. */
import type { TurnState } from '../types';
import type { ExpertNote } from './types';

/** `Gathered evidence:\n\nClinical expert notes:\n…`, one note per consultation; '' without notes. */
export function assembleGathered(notes: readonly ExpertNote[]): string {
  const bodies = notes.map((n) => n.note.trim()).filter((n) => n !== '');
  if (bodies.length === 0) return '';
  return `Gathered evidence:\n\nClinical expert notes:\n${bodies.join('\n\n')}`;
}

/**
 * The expert notes other stages read: the Answer after its instructions (§7.1) and the In-Depth
 * "GATHERED KB / EVIDENCE" section through engine/gathered.ts. A leaf module (types only), so the
 * answer stage can read it without an import cycle through the gather loop.
 */
export function gatheredNotes(turn: TurnState): string {
  return turn.gather.text;
}
