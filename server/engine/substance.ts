/** The substance gate (§7.1): an Answer must say something before it is shown or elaborated. */

export const FALLBACK_ANSWER = 'I could not produce a complete answer for this turn. Please try again.';

/** Non-empty, holds an alphanumeric character, and is not the hub's own fallback sentence. */
export function isSubstantive(answer: string): boolean {
  return answer.trim() !== '' && /[\p{L}\p{N}]/u.test(answer) && !answer.toLowerCase().includes('could not produce a complete answer');
}
