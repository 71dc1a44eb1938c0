/**
 * Text normalisation for localising reviewer quotes (§7.3 step 6). The reviewer copies words from the
 * Answer and the chart, but rarely byte-for-byte: full-width digits, case, citation markers and line
 * breaks differ. Both sides go through the same function, so only the wording has to match.
 */

/**
 * `[3]`, `[3, 4]`, `[3; 4]` with the whitespace before them: removing the leading space too keeps
 * `71 kg [3].` and a quoted `71 kg.` equal. The match starts only where a whitespace run starts
 * (`(?<!\s)`): a plain `\s*\[` was retried from every position of a long blank run (quadratic —
 * 30,000 CRLF took seconds); any match inside a run also matches from its start, so nothing changes.
 */
const CITATION_MARKER = /(?<!\s)\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]/g;

/** NFKC, lower case, citation markers removed, whitespace collapsed, trimmed. */
export function normaliseForMatch(text: string): string {
  return text
    .normalize('NFKC') // before marker removal, so `［３］` is a marker too
    .toLowerCase()
    .replace(CITATION_MARKER, '')
    .replace(/\s+/g, ' ')
    .trim();
}
