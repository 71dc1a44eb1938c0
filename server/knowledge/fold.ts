/**
 * Accent- and case-folding shared by the stores (query terms, lexical scores) and the hash embedder,
 * so "pénicilline", "penicilline" and "PENICILLINE" are one token everywhere (knowledge-layer.md §3).
 */

/** NFC, then diacritics removed (NFD minus combining marks), then lower case. */
export function foldText(text: string): string {
  return text.normalize('NFC').normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Folded word tokens (letters and digits), in order, duplicates kept. */
export function foldedTokens(text: string): string[] {
  return foldText(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** Distinct folded tokens, in first-seen order. */
export function distinctTokens(text: string): string[] {
  return [...new Set(foldedTokens(text))];
}

// French function words (folded): they match everywhere and say nothing, and Postgres's `french` configuration
// drops them, so both engines search and score on content words only.
const STOPWORDS = new Set(
  ('a au aux avec ce ces d dans de des du elle en et eux il ils je l la le les leur lui m ma mais me meme mes moi mon n ne nos notre nous ' +
    'on ou par pas pour qu que qui s sa se ses son sur t ta te tes toi ton tu un une vos votre vous y c j est sont chez sans sous entre ' +
    'the of and or to in for with')
    .split(' '),
);

/** Distinct folded tokens without function words: what lexical search matches and scores on. */
export function contentTerms(text: string): string[] {
  return distinctTokens(text).filter((t) => !STOPWORDS.has(t));
}
