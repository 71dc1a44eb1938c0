/**
 * Citation contract of the product Answer (§7.2, §6.4 step 1): grouped markers become one marker
 * per index; the markers and table refs the writer actually used beat its declared `citations`;
 * declared indices without any usage are attached only where they cannot be mis-scoped.
 */
import { citationMarkers, type TableBlock } from '../../answer';
import { trailingRunStart } from '../../text-scan';
import type { ContractIssue } from './issue';

export interface CanonicalizedCitations {
  text: string;
  changed: boolean;
  /** Offending substrings in order of appearance (deduplicated); the text keeps them as written. */
  malformed: string[];
}

const WORD = /[\p{L}\p{N}]/u;
const INT = /^\s*\d+\s*$/;
// `[18; 17]`, `[18 17]`, `[1/2/3]`: an index list with a separator we do not accept as a group.
const OTHER_SEPARATOR = /^\s*\d+(?:\s*[;/]\s*\d+|\s+\d+)+\s*$/;

function gluedSpan(text: string, start: number, end: number): string {
  let s = start;
  let e = end;
  while (s > 0 && WORD.test(text[s - 1])) s--;
  while (e < text.length && WORD.test(text[e])) e++;
  return text.slice(s, e);
}

/** `[18, 17, 15]` → `[18][17][15]` (deduplicated, order kept); malformed forms are reported, not touched. */
export function canonicalizeCitationGroups(text: string): CanonicalizedCitations {
  const malformed: string[] = [];
  const reported = new Set<string>(); // not `malformed.includes`: quadratic over thousands of groups
  const report = (s: string) => {
    if (reported.has(s)) return;
    reported.add(s);
    malformed.push(s);
  };
  let changed = false;
  const out = text.replace(/\[([^[\]]*)\]/g, (whole: string, inner: string, offset: number) => {
    const end = offset + whole.length;
    const parts = inner.split(',');
    const ints = parts.map((p) => INT.test(p));
    const allInt = ints.every(Boolean);
    const numeric = ints.some(Boolean) || OTHER_SEPARATOR.test(inner);
    if (!numeric) return whole; // ordinary bracketed prose such as `[administrative]`
    if (text[offset - 1] === '[' || text[end] === ']') {
      // `[[18,17]]`: we cannot tell which bracket pair was meant as the marker
      report(text.slice(text[offset - 1] === '[' ? offset - 1 : offset, text[end] === ']' ? end + 1 : end));
      return whole;
    }
    if (!allInt || parts.length === 1) {
      if (!allInt || OTHER_SEPARATOR.test(inner)) report(whole); // `[18, foo]`, `[18; 17]`
      return whole;
    }
    // A group running into the next word (`x[18,17]y`) may be part of other notation; a group
    // after a word (`71 kg[3, 4].`) is ordinary sloppy spacing and is canonicalised.
    if (end < text.length && WORD.test(text[end])) {
      report(gluedSpan(text, offset, end));
      return whole;
    }
    const seen = [...new Set(parts.map((p) => Number(p.trim())))];
    changed = true;
    return seen.map((n) => `[${n}]`).join('');
  });
  return { text: out, changed, malformed };
}

export interface CitationContractInput {
  answer: string;
  /** The writer's declared `citations` array, as it wrote it. */
  declared: number[];
  /** Blocks that passed the table contract. */
  blocks: TableBlock[];
}

export interface CitationContractResult {
  answer: string;
  citations: number[];
  changed: boolean;
  issue: ContractIssue | null;
}

function uniquePositive(xs: number[]): number[] {
  return [...new Set(xs.filter((n) => Number.isSafeInteger(n) && n > 0))];
}

function tableRefs(blocks: TableBlock[]): number[] {
  return blocks.flatMap((b) => b.rows.flatMap((r) => Object.values(r.cells).flatMap((c) => c.refs)));
}

/** Sentences of prose: split after `.!?` + whitespace, and at line breaks (list items are claims). */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const COORDINATED = /,\s*(?:and|but|or|nor|yet|so)\b/i;
const NO_UPCOMING = /^(?:there\s+(?:is|are)\s+)?no\s+(?:upcoming|future|next|scheduled)\b/i;
const APPOINTMENT_KIND = String.raw`(?:appointments?|return[- ]visits?(?:\s+dates?)?|follow[- ]?ups?(?:\s+visits?)?|scheduled\s+visits?|visits?|encounters?)`;
// "appointment, follow-up, or return visit": one list of kinds of appointment, not two claims.
// `\s*(?:[,/]\s*)?`, not `\s*(?:,|/)?\s*`: the same separators, but two adjacent `\s*` split a blank run every way (quadratic).
const APPOINTMENT_LIST = new RegExp(String.raw`${APPOINTMENT_KIND}(?:\s*(?:[,/]\s*)?(?:(?:or|and)\s+)?${APPOINTMENT_KIND})+`, 'gi');

function isSimpleClaim(sentence: string): boolean {
  return !sentence.includes(';') && !COORDINATED.test(sentence);
}

/**
 * One claim: one sentence with no `;` and no comma + coordinating conjunction. The bounded
 * "no upcoming appointment…" sentence may list kinds of appointment with commas, but may not be
 * coordinated with anything else.
 */
export function isSingleClaim(prose: string): boolean {
  const s = sentences(prose);
  if (s.length !== 1) return false;
  if (isSimpleClaim(s[0])) return true;
  return NO_UPCOMING.test(s[0]) && isSimpleClaim(s[0].replace(APPOINTMENT_LIST, 'appointment'));
}

/** `"X."` + [1, 2] → `"X [1][2]."`: markers go before the final punctuation. */
function appendMarkers(text: string, indices: number[]): string {
  const markers = indices.map((i) => `[${i}]`).join('');
  const trimmed = text.trimEnd();
  const punct = trimmed.slice(trailingRunStart(trimmed, '.!?')); // a scan: `/[.!?]+$/` was quadratic on a long run
  const body = trimmed.slice(0, trimmed.length - punct.length).trimEnd();
  return `${body} ${markers}${punct}`;
}

/**
 * Explicit usage (inline markers, then table refs) is authoritative and replaces the declared
 * array. Without explicit usage, declared indices are scoped to single-claim prose as markers;
 * across more than one claim we cannot know which claim each source supports ⇒ `citation_scope`.
 */
export function applyCitationContract(draft: CitationContractInput): CitationContractResult {
  const declared = uniquePositive(draft.declared);
  const explicit = uniquePositive([...citationMarkers(draft.answer), ...tableRefs(draft.blocks)]);
  // Only dropping or adding a declared index is a change; order alone is not (§13.1 #4).
  const dropped = (kept: number[]) => draft.declared.some((n) => !kept.includes(n));
  if (explicit.length > 0) {
    return { answer: draft.answer, citations: explicit, changed: dropped(explicit), issue: null };
  }
  if (declared.length === 0) {
    return { answer: draft.answer, citations: [], changed: draft.declared.length > 0, issue: null };
  }
  if (isSingleClaim(draft.answer)) {
    return { answer: appendMarkers(draft.answer, declared), citations: declared, changed: true, issue: null };
  }
  return {
    answer: draft.answer,
    citations: declared,
    changed: dropped(declared),
    issue: {
      id: 'citation_scope',
      status: 'fail',
      severity: 'block',
      reason: `The declared citations ${declared.map((i) => `[${i}]`).join('')} are not marked in the text, and the prose is not a single claim they could be attached to.`,
      source_indices: declared,
      claim: draft.answer.slice(0, 240),
    },
  };
}
