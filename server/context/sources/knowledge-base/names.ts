/** How the knowledge-base source's records are named in a ledger: the knowledge layer writes them, the engine reads them. */
export const KNOWLEDGE_SOURCE_NAME = 'knowledge-base';
export const KNOWLEDGE_PRIORITY = 20;

/** Opens the preamble block this source writes (gathered-evidence readers look for it). */
export const NOTES_HEADER = 'Knowledge-base notes (context only, not citable):';
