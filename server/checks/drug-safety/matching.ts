/**
 * Matching conventions of the checks (§9.2, the same as ChartSearchAI's own Java drug checks): package
 * aliases match free text as **whole words**; patient tokens (allergens, conditions, order names)
 * match rule tokens as **substrings**. ATC relations: the level-4 subgroup (first five characters) and
 * shared cross-reactivity groups.
 */
import { ATC_SUBSTANCE } from './package-schema';
import type { CrossReactivityGroup, DrugEntry } from './types';

export interface AliasMatch {
  entry: DrugEntry;
  alias: string;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{N}]/u;

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && WORD.test(c);
}

interface AliasIndex {
  /** Aliases by their first word: a text is scanned word by word, not once per alias. */
  byFirstWord: Map<string, Array<{ entry: DrugEntry; alias: string }>>;
  /** Aliases that do not start with a word character (searched the slow way). */
  other: Array<{ entry: DrugEntry; alias: string }>;
}

// Built once per loaded entry list (a WHO-ATC export has thousands of substances).
const INDEXES = new WeakMap<readonly DrugEntry[], AliasIndex>();

function aliasIndex(entries: readonly DrugEntry[]): AliasIndex {
  let index = INDEXES.get(entries);
  if (index) return index;
  index = { byFirstWord: new Map(), other: [] };
  for (const entry of entries) {
    for (const alias of entry.aliases) {
      if (alias === '') continue;
      if (!isWordChar(alias[0])) {
        index.other.push({ entry, alias });
        continue;
      }
      let end = 0;
      while (end < alias.length && isWordChar(alias[end])) end++;
      const first = alias.slice(0, end);
      const list = index.byFirstWord.get(first) ?? [];
      list.push({ entry, alias });
      index.byFirstWord.set(first, list);
    }
  }
  INDEXES.set(entries, index);
  return index;
}

/** Every whole-word occurrence of every alias in `lower` (already lower-cased), in text order. */
export function aliasMatches(lower: string, entries: readonly DrugEntry[]): AliasMatch[] {
  const index = aliasIndex(entries);
  const out: AliasMatch[] = [];
  for (let i = 0; i < lower.length; ) {
    if (!isWordChar(lower[i])) {
      i++;
      continue;
    }
    let j = i;
    while (j < lower.length && isWordChar(lower[j])) j++;
    for (const { entry, alias } of index.byFirstWord.get(lower.slice(i, j)) ?? []) {
      if (lower.startsWith(alias, i) && !isWordChar(lower[i + alias.length])) out.push({ entry, alias, start: i, end: i + alias.length });
    }
    i = j;
  }
  for (const { entry, alias } of index.other) {
    for (let at = lower.indexOf(alias); at >= 0; at = lower.indexOf(alias, at + 1)) {
      const end = at + alias.length;
      if (!isWordChar(lower[at - 1]) && !isWordChar(lower[end])) out.push({ entry, alias, start: at, end });
    }
  }
  return out.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Entries named in a text, deduplicated by id, in order of first mention. */
export function entriesNamedIn(text: string, entries: readonly DrugEntry[]): DrugEntry[] {
  const seen = new Map<string, DrugEntry>();
  for (const m of aliasMatches(text.toLowerCase(), entries)) if (!seen.has(m.entry.id)) seen.set(m.entry.id, m.entry);
  return [...seen.values()];
}

/**
 * The entry a medication or allergen name refers to: the longest alias found in it as a whole word
 * (`Warfarin sodium 5 mg tablet` → warfarin), or an entry carrying the name as its ATC code.
 */
export function entryForName(name: string, entries: readonly DrugEntry[]): DrugEntry | null {
  const lower = name.toLowerCase();
  const code = name.trim().toUpperCase();
  if (ATC_SUBSTANCE.test(code)) return entries.find((e) => e.atcCodes.includes(code)) ?? null;
  let best: AliasMatch | null = null;
  for (const m of aliasMatches(lower, entries)) if (!best || m.alias.length > best.alias.length) best = m;
  return best?.entry ?? null;
}

/** ATC level-4 subgroup of a substance code (`M01AE01` → `M01AE`). */
export function subgroupOf(code: string): string {
  return code.slice(0, 5);
}

/** Names of the cross-reactivity groups any of the codes belongs to. */
export function groupsOf(codes: readonly string[], groups: readonly CrossReactivityGroup[]): string[] {
  return groups.filter((g) => codes.some((c) => g.atcPrefixes.some((p) => c.startsWith(p)))).map((g) => g.name);
}

/** The first relation between two code sets: a shared subgroup, else a shared group; null when unrelated. */
export function classRelation(
  own: readonly string[],
  other: readonly string[],
  groups: readonly CrossReactivityGroup[],
): { kind: 'subgroup' | 'group'; name: string } | null {
  for (const a of own) for (const b of other) if (a !== b && subgroupOf(a) === subgroupOf(b)) return { kind: 'subgroup', name: subgroupOf(a) };
  const mine = new Set(groupsOf(own, groups));
  const shared = groupsOf(other, groups).find((g) => mine.has(g));
  return shared === undefined ? null : { kind: 'group', name: shared };
}
