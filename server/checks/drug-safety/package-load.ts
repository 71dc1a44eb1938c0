/**
 * Loads the configured drug-safety sources once, at start-up (§9.1): the package (JSON or ATC export)
 * and the cross-reactivity groups, each independently. A missing, unreadable or malformed source is
 * reported and treated as absent — never a start-up failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseAtcExport, parseCrossReactivity, parsePackageJson, type ParsedPackage } from './package-parse';
import type { CrossReactivityGroup, DrugPackage, DrugSafetyIssue, SourceFormat } from './types';

export interface SourceSettings {
  format: SourceFormat;
  datasetPath: string;
  /** null = groups disabled (`none`). */
  crossReactivityPath: string | null;
}

export interface LoadedSources {
  /** null when no usable package was loaded (status is then `unavailable`). */
  pkg: DrugPackage | null;
  /** Why there is no package, or what loading had to drop; for the start-up log and every result. */
  issues: DrugSafetyIssue[];
}

function readText(file: string): { text: string | null; issue: DrugSafetyIssue | null } {
  try {
    return { text: fs.readFileSync(file, 'utf8'), issue: null };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return { text: null, issue: { id: 'package_unreadable', reason: `The drug-safety source '${path.basename(file)}' could not be read (${code}).` } };
  }
}

function parseJsonText(text: string, file: string): { doc: unknown; issue: DrugSafetyIssue | null } {
  try {
    return { doc: JSON.parse(text), issue: null };
  } catch {
    return { doc: null, issue: { id: 'package_malformed', reason: `The drug-safety source '${path.basename(file)}' is not valid JSON; it is treated as absent.` } };
  }
}

function loadPackage(s: SourceSettings): { pkg: ParsedPackage | null; issues: DrugSafetyIssue[] } {
  const { text, issue } = readText(s.datasetPath);
  if (text === null) return { pkg: null, issues: [issue!] };
  if (s.format === 'atc') return parseAtcExport(text, path.basename(s.datasetPath));
  const parsed = parseJsonText(text, s.datasetPath);
  if (parsed.issue) return { pkg: null, issues: [parsed.issue] };
  return parsePackageJson(parsed.doc);
}

function loadGroups(file: string | null): { groups: CrossReactivityGroup[] | null; issues: DrugSafetyIssue[] } {
  if (file === null) return { groups: null, issues: [] };
  const { text, issue } = readText(file);
  if (text === null) return { groups: null, issues: [{ ...issue!, id: 'cross_reactivity_unreadable' }] };
  const parsed = parseJsonText(text, file);
  if (parsed.issue) return { groups: null, issues: [{ ...parsed.issue, id: 'cross_reactivity_malformed' }] };
  return parseCrossReactivity(parsed.doc);
}

export function loadSources(s: SourceSettings): LoadedSources {
  const loaded = loadPackage(s);
  const groups = loadGroups(s.crossReactivityPath);
  const issues = [...loaded.issues.filter((i) => i.id !== 'package_element_dropped'), ...groups.issues];
  if (!loaded.pkg) return { pkg: null, issues };
  const p = loaded.pkg;
  const pkg: DrugPackage = {
    entries: p.entries,
    groups: groups.groups ?? [],
    summary: {
      id: p.id,
      source_format: s.format,
      version: p.version,
      provenance: p.provenance,
      review_state: p.reviewState,
      issues: [...p.issues, ...groups.issues],
      cross_reactivity: { loaded: groups.groups !== null, groups: groups.groups?.length ?? 0, source: s.crossReactivityPath === null ? null : path.basename(s.crossReactivityPath) },
      entries: p.entries.length,
    },
  };
  return { pkg, issues };
}
