/**
 * `/v2/context` → the knowledge-base ledger (knowledge-layer.md §6.4): one `EvidenceRecord` per MKU, the
 * byte-exact verbatim first in its text (the only citable unit; grounding compares claims against it),
 * `mandatory` for safety-critical MKUs and safety items up to a cap (best ranked first, the rest become
 * ordinary records so a broad sweep cannot crowd out the chart), conflicts and DISAGREE/PARTIAL
 * cross-refs in the preamble (the writer sees the tension but cannot cite it), fallback chunks left out
 * (non-adjudicated text is never citable). Pure: plain data in, plain data out.
 */
import { KNOWLEDGE_PRIORITY, KNOWLEDGE_SOURCE_NAME, NOTES_HEADER, type EvidenceLedger, type EvidenceRecord } from '../../context';
import type { ContextResponse, MkuResult } from '../pipeline/types';

export { KNOWLEDGE_PRIORITY, KNOWLEDGE_SOURCE_NAME, NOTES_HEADER } from '../../context';

export const KNOWLEDGE_RESOURCE_TYPE = 'KnowledgeReference';

/** Preamble note lines at most: the notes repeat safety MKUs the records already carry. */
export const MAX_NOTES = 8;

export interface MappingLimits {
  maxMandatory: number;
  k: number;
}

export interface MappingStats {
  returned: number;
  records: number;
  mandatory: number;
  /** Safety MKUs beyond the cap, kept as ordinary records. */
  demoted: number;
  /** Ordinary MKUs beyond `k`, left out. */
  beyond_k: number;
  conflicts: number;
  cross_refs_noted: number;
  fallback_left_out: number;
}

export interface MappedLedger {
  ledger: EvidenceLedger;
  stats: MappingStats;
}

/**
 * `<source_org> <year>, <doc_title> › <section>`; parts the provenance lacks are left out ('' when none). Kept
 * apart from the record text (the verbatim alone): an em dash inside a quote could not tell them apart.
 */
export function recordAttribution(mku: MkuResult): string {
  const p = mku.provenance;
  if (!p) return '';
  const who = [p.source_org || p.source_name, p.year ?? null].filter((v) => v !== null && v !== '').join(' ');
  const where = [p.doc_title, ...p.section_titles.filter((t) => t.trim() !== '')].filter(Boolean).join(' › ');
  return [who, where].filter((v) => v !== '').join(', ');
}

export function toRecord(mku: MkuResult, opts: { mandatory: boolean; safety: boolean; demoted: boolean; license: string | null }): EvidenceRecord {
  const p = mku.provenance;
  const attribution = recordAttribution(mku);
  const metadata: Record<string, unknown> = {
    ...(attribution ? { attribution } : {}),
    ...(p?.doc_title ? { title: p.doc_title } : {}),
    ...(p?.doc_url ? { url: p.doc_url } : {}),
    ...(p?.year !== null && p?.year !== undefined ? { version: String(p.year) } : {}),
    ...(opts.license ? { license: opts.license } : {}),
    ...(p?.source_org ? { authority: p.source_org, source_org: p.source_org } : {}),
    ...(p?.source_name ? { source_name: p.source_name } : {}),
    ...(p?.section_titles.length ? { section: p.section_titles.join(' › ') } : {}),
    ...(p?.pages.length ? { pages: p.pages } : {}),
    evidence_grade: mku.evidence_grade ?? null,
    strength: mku.strength ?? null,
    reviewed: mku.review === true,
    criteria: mku.criteria,
    directive: mku.directive,
    tags: mku.tags ?? [],
    paths: mku.paths ?? [],
    score: mku.score,
    safety_critical: mku.safety_critical === true,
    safety_item: opts.safety,
    ...(opts.demoted ? { mandatory_demoted: true } : {}),
  };
  return {
    stableId: `${KNOWLEDGE_SOURCE_NAME}:mku:${mku.id}`,
    source: KNOWLEDGE_SOURCE_NAME,
    sourcePriority: KNOWLEDGE_PRIORITY,
    resourceType: KNOWLEDGE_RESOURCE_TYPE,
    resourceUuid: mku.id,
    // Never a chart date: KB records must not feed temporal gates (the year is `version`).
    date: null,
    // The committed verbatim, byte for byte: what the prompt quotes, references show and grounding compares.
    text: mku.verbatim,
    mandatory: opts.mandatory,
    metadata,
    raw: mku as unknown as Record<string, unknown>,
  };
}

function label(m: MkuResult | undefined, id: string): string {
  const p = m?.provenance;
  if (!p) return `knowledge unit ${id}`;
  return `"${p.doc_title}"${p.year !== null ? ` (${p.source_org} ${p.year})` : ''}`;
}

/** Conflicts and DISAGREE/PARTIAL cross-refs touching a kept record, one line each; '' when none. */
function notes(res: ContextResponse, kept: ReadonlyMap<string, MkuResult>): { text: string; conflicts: number; crossRefs: number } {
  const lines: string[] = [];
  const conflicts = (res.conflicts ?? []).filter((c) => c.description.trim() !== '' && (!c.mku_id || kept.has(c.mku_id)));
  for (const c of conflicts) lines.push(`- Conflict with this patient: ${c.description.trim()}`);
  const byId = new Map(res.mkus.map((m) => [m.id, m]));
  const tensions = (res.cross_refs ?? []).filter((x) => (x.stance === 'DISAGREE' || x.stance === 'PARTIAL') && (kept.has(x.from_id) || kept.has(x.to_id)));
  for (const x of tensions) lines.push(`- Sources ${x.stance === 'DISAGREE' ? 'disagree' : 'partly agree'}: ${label(byId.get(x.from_id), x.from_id)} and ${label(byId.get(x.to_id), x.to_id)}.`);
  // Identical lines once (two MKU pairs of the same two documents read alike), and a bounded block.
  const unique = [...new Set(lines)];
  const shown = unique.slice(0, MAX_NOTES);
  if (unique.length > MAX_NOTES) shown.push(`- (${unique.length - MAX_NOTES} more note(s) not shown)`);
  return { text: shown.length ? `${NOTES_HEADER}\n${shown.join('\n')}\n` : '', conflicts: conflicts.length, crossRefs: tensions.length };
}

/** Best ranked first: score, then id (deterministic on ties). */
function byRank(a: MkuResult, b: MkuResult): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function mapContext(res: ContextResponse, licenses: ReadonlyMap<string, string>, limits: MappingLimits): MappedLedger {
  const safetyIds = new Set(res.safety_items ?? []);
  const isSafety = (m: MkuResult) => m.safety_critical === true || safetyIds.has(m.id);
  const seen = new Set<string>();
  const mkus = res.mkus.filter((m) => !seen.has(m.id) && seen.add(m.id));
  const safety = mkus.filter(isSafety).sort(byRank);
  const mandatoryIds = new Set(safety.slice(0, limits.maxMandatory).map((m) => m.id));
  const demotedIds = new Set(safety.slice(limits.maxMandatory).map((m) => m.id));
  const ordinary = mkus.filter((m) => !isSafety(m));
  const keptOrdinary = ordinary.slice(0, limits.k);
  // Ledger order: mandatory first (rank order), then demoted safety items, then ordinary (pipeline order).
  const ordered = [...safety.filter((m) => mandatoryIds.has(m.id)), ...safety.filter((m) => demotedIds.has(m.id)), ...keptOrdinary];
  const records = ordered.map((m) => toRecord(m, { mandatory: mandatoryIds.has(m.id), safety: isSafety(m), demoted: demotedIds.has(m.id), license: licenses.get(m.id) ?? null }));
  const noted = notes(res, new Map(ordered.map((m) => [m.id, m])));
  return {
    ledger: { records, originalText: '', preamble: records.length ? noted.text : '', sources: records.length ? [KNOWLEDGE_SOURCE_NAME] : [] },
    stats: {
      returned: res.mkus.length,
      records: records.length,
      mandatory: mandatoryIds.size,
      demoted: demotedIds.size,
      beyond_k: ordinary.length - keptOrdinary.length,
      conflicts: records.length ? noted.conflicts : 0,
      cross_refs_noted: records.length ? noted.crossRefs : 0,
      fallback_left_out: (res.fallback ?? []).length,
    },
  };
}
