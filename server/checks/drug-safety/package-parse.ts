/**
 * Parsing of drug-safety sources into plain data (§9.1): the JSON package, an operator's ATC
 * classification export and the cross-reactivity groups. Pure: the caller reads the files. A source
 * that breaks its envelope schema yields null with an issue (treated as absent, never a crash); inside
 * a valid package, bad entries, bands and rule elements are dropped one by one and counted.
 */
import {
  ATC_PREFIX, ATC_SUBSTANCE, schemaError, validateAgeBand, validateCrossReactivity, validateEntry, validatePackage,
} from './package-schema';
import type {
  AgeBand, ContraindicationRule, CrossReactivityGroup, DrugEntry, DrugSafetyIssue, InteractionRule, ReviewState, SourceSeverity,
} from './types';
import { REVIEW_STATES } from './types';

export interface ParsedPackage {
  id: string;
  version: string;
  reviewState: ReviewState;
  provenance: Record<string, unknown>;
  entries: DrugEntry[];
  issues: DrugSafetyIssue[];
}

type Json = Record<string, unknown>;

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/** A list field: an array, or empty with a count of what was not (a scalar is never read as one item). */
function list(v: unknown, field: string, dropped: Map<string, number>): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  dropped.set(`${field}_not_a_list`, (dropped.get(`${field}_not_a_list`) ?? 0) + 1);
  return [];
}

function count(dropped: Map<string, number>, key: string): void {
  dropped.set(key, (dropped.get(key) ?? 0) + 1);
}

const SEVERITY_WORDS: Record<string, SourceSeverity> = { minor: 'minor', moderate: 'moderate', major: 'major', unknown: 'unknown' };

function severityOf(v: unknown): SourceSeverity | null {
  const s = str(v);
  return s === null ? null : (SEVERITY_WORDS[s.toLowerCase()] ?? 'unknown');
}

function ageBand(v: unknown, dropped: Map<string, number>): AgeBand | null {
  const b = v as Json;
  if (!validateAgeBand(v) || (b.maxYears as number) < (b.minYears as number)) {
    count(dropped, 'age_band_invalid');
    return null;
  }
  const perKg = (x: unknown) => (typeof x === 'number' ? x : null);
  return { minYears: b.minYears as number, maxYears: b.maxYears as number, mgPerKgMin: perKg(b.mgPerKgMin), mgPerKgMax: perKg(b.mgPerKgMax), maxDailyDoseMg: b.maxDailyDoseMg as number };
}

function interaction(v: unknown, dropped: Map<string, number>): InteractionRule | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    count(dropped, 'interaction_invalid');
    return null;
  }
  const r = v as Json;
  const token = str(r.token)?.toLowerCase() ?? null;
  const atc = str(r.atc)?.toUpperCase() ?? null;
  if (token === null && (atc === null || !ATC_SUBSTANCE.test(atc))) {
    count(dropped, 'interaction_invalid');
    return null;
  }
  return { token, atc: atc !== null && ATC_SUBSTANCE.test(atc) ? atc : null, note: str(r.note), severity: severityOf(r.severity), source: str(r.source) };
}

function contraindication(v: unknown, dropped: Map<string, number>): ContraindicationRule | null {
  const r = (v ?? {}) as Json;
  const token = str(r.token)?.toLowerCase() ?? null;
  if (typeof v !== 'object' || v === null || (r.type !== 'allergy' && r.type !== 'condition') || token === null) {
    count(dropped, 'contraindication_invalid');
    return null;
  }
  return { type: r.type, token, note: str(r.note), source: str(r.source) };
}

function atcCodes(v: unknown, dropped: Map<string, number>): string[] {
  const out: string[] = [];
  for (const c of list(v, 'atcCodes', dropped)) {
    const code = str(c)?.toUpperCase() ?? null;
    if (code !== null && ATC_SUBSTANCE.test(code)) out.push(code);
    else count(dropped, 'atc_code_invalid');
  }
  return out;
}

/** One entry, or null when it has no id or name (§9.1: skipped, not fatal). */
export function parseEntry(v: unknown, dropped: Map<string, number>): DrugEntry | null {
  if (!validateEntry(v)) {
    count(dropped, 'entry_invalid');
    return null;
  }
  const e = v as Json;
  const name = str(e.name)!;
  const aliases = new Set<string>([name.toLowerCase()]);
  for (const a of list(e.aliases, 'aliases', dropped)) {
    const alias = str(a);
    if (alias !== null) aliases.add(alias.toLowerCase());
  }
  const keep = <T>(xs: Array<T | null>): T[] => xs.filter((x): x is T => x !== null);
  return {
    id: str(e.id)!,
    name,
    drugClass: str(e.drugClass),
    aliases: [...aliases],
    atcCodes: atcCodes(e.atcCodes, dropped),
    ageBands: keep(list(e.ageBands, 'ageBands', dropped).map((b) => ageBand(b, dropped))),
    interactions: keep(list(e.interactions, 'interactions', dropped).map((r) => interaction(r, dropped))),
    contraindications: keep(list(e.contraindications, 'contraindications', dropped).map((r) => contraindication(r, dropped))),
    warnings: list(e.warnings, 'warnings', dropped).map(str).filter((w): w is string => w !== null),
    source: str(e.source),
  };
}

function droppedIssues(dropped: Map<string, number>): DrugSafetyIssue[] {
  return [...dropped].map(([what, n]) => ({ id: 'package_element_dropped', reason: `${n} package element(s) dropped: ${what.replace(/_/g, ' ')}.`, element: what, count: n }));
}

/** A `drug_safety_package.v1` document; null (with the reason) when its envelope is malformed. */
export function parsePackageJson(doc: unknown): { pkg: ParsedPackage | null; issues: DrugSafetyIssue[] } {
  if (!validatePackage(doc)) return { pkg: null, issues: [{ id: 'package_malformed', reason: `The drug-safety package does not match its schema (${schemaError(validatePackage.errors)}); it is treated as absent.` }] };
  const d = doc as Json;
  const dropped = new Map<string, number>();
  const seen = new Set<string>();
  const entries: DrugEntry[] = [];
  for (const raw of d.entries as unknown[]) {
    const entry = parseEntry(raw, dropped);
    if (!entry) continue;
    if (seen.has(entry.id)) {
      count(dropped, 'entry_duplicate_id');
      continue;
    }
    seen.add(entry.id);
    entries.push(entry);
  }
  const issues = droppedIssues(dropped);
  const pkg: ParsedPackage = { id: str(d.id)!, version: str(d.version)!, reviewState: d.review_state as ReviewState, provenance: { ...(d.provenance as Json) }, entries, issues };
  return { pkg, issues };
}

const HEADER = /^#\s*(id|version|review_state|authority|license):\s*(\S.*)$/;

/**
 * An ATC classification export (§9.1): `<code><whitespace><name>` lines, `#` comments ignored. One
 * entry per level-5 code with the nearest parent present as its class — classification only, no rules.
 * Identity comes from optional `# id:`, `# version:`, `# review_state:`, `# authority:`, `# license:`
 * header comments (a plain export is an unreviewed `proposed` source named after its file).
 */
export function parseAtcExport(text: string, fileName: string): { pkg: ParsedPackage; issues: DrugSafetyIssue[] } {
  const names = new Map<string, string>();
  const header: Record<string, string> = {};
  let malformed = 0;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const h = HEADER.exec(line);
      if (h) header[h[1]] = h[2].trim();
      continue;
    }
    const ws = line.search(/\s/);
    const code = (ws < 0 ? line : line.slice(0, ws)).toUpperCase();
    const name = ws < 0 ? '' : line.slice(ws).trim();
    if (!ATC_PREFIX.test(code) || name === '') {
      malformed++;
      continue;
    }
    names.set(code, name);
  }
  const parentOf = (code: string): string | null => {
    for (const len of [5, 4, 3]) if (names.has(code.slice(0, len))) return names.get(code.slice(0, len))!;
    return null;
  };
  const entries: DrugEntry[] = [];
  for (const [code, name] of names) {
    if (!ATC_SUBSTANCE.test(code)) continue;
    entries.push({ id: code, name, drugClass: parentOf(code), aliases: [name.toLowerCase()], atcCodes: [code], ageBands: [], interactions: [], contraindications: [], warnings: [], source: 'atc' });
  }
  const issues: DrugSafetyIssue[] = malformed ? [{ id: 'package_element_dropped', reason: `${malformed} ATC line(s) ignored: not an ATC code and a name.`, element: 'atc_line_invalid', count: malformed }] : [];
  const state = (REVIEW_STATES as readonly string[]).includes(header.review_state) ? (header.review_state as ReviewState) : 'proposed';
  const provenance: Record<string, unknown> = { authority: header.authority ?? 'WHO ATC classification export (operator supplied)', classification_only: true };
  if (header.license) provenance.license = header.license;
  return { pkg: { id: header.id ?? `atc:${fileName}`, version: header.version ?? 'unversioned', reviewState: state, provenance, entries, issues }, issues };
}

/** Cross-reactivity groups (§9.1); prefixes that are not ATC levels 2–5 are dropped and counted. */
export function parseCrossReactivity(doc: unknown): { groups: CrossReactivityGroup[] | null; issues: DrugSafetyIssue[] } {
  if (!validateCrossReactivity(doc)) {
    return { groups: null, issues: [{ id: 'cross_reactivity_malformed', reason: `The cross-reactivity groups do not match their schema (${schemaError(validateCrossReactivity.errors)}); class groups are not used.` }] };
  }
  let dropped = 0;
  const groups: CrossReactivityGroup[] = [];
  for (const g of (doc as { groups: Json[] }).groups) {
    const prefixes = (g.atcPrefixes as string[]).map((p) => p.trim().toUpperCase()).filter((p) => {
      const ok = ATC_PREFIX.test(p);
      if (!ok) dropped++;
      return ok;
    });
    if (prefixes.length) groups.push({ name: String(g.name), note: str(g.note), atcPrefixes: prefixes });
  }
  const issues: DrugSafetyIssue[] = dropped ? [{ id: 'package_element_dropped', reason: `${dropped} cross-reactivity prefix(es) dropped: not ATC levels 2-5.`, element: 'atc_prefix_invalid', count: dropped }] : [];
  return { groups, issues };
}
