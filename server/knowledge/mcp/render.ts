/**
 * The tools' `content`: one readable plain-text block each (Markdown-ish, for a model or a person to read).
 * MKU verbatims are quoted exactly as stored, never turned into HTML and never escaped: a `text` content
 * block is not markup, so `<script>` in a verbatim stays the characters `<script>`. The JSON a program
 * wants is `structuredContent`.
 */
import type { AnswerResponse, ContextResponse, MkuResult } from '../pipeline/types';
import type { SearchChunk, SearchResult } from './search';

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function quote(verbatim: string): string[] {
  return verbatim.split(/\r\n|\r|\n/).map((l) => `> ${l}`);
}

function flags(m: Pick<MkuResult, 'safety_critical' | 'tags' | 'score'>, safety: Set<string>, id: string): string {
  const f = [`score ${m.score}`];
  if (m.safety_critical || safety.has(id)) f.push('SÉCURITÉ');
  if (m.tags.includes('unreviewed')) f.push('non relu');
  return f.join(', ');
}

function tail(r: Pick<ContextResponse, 'safety_items' | 'conflicts' | 'cross_refs' | 'fallback'>): string[] {
  const out: string[] = [];
  if (r.safety_items.length) out.push(`Éléments de sécurité (à traiter explicitement) : ${r.safety_items.join(', ')}`, '');
  if (r.conflicts.length) {
    out.push('## Conflits avec le patient', '');
    for (const c of r.conflicts) out.push(`- ${oneLine(c.description)}${c.mku_id ? ` (${c.mku_id})` : ''}`);
    out.push('');
  }
  if (r.cross_refs.length) {
    out.push('## Références croisées', '');
    for (const c of r.cross_refs) out.push(`- ${c.from_id} ${c.stance} ${c.to_id}`);
    out.push('');
  }
  if (r.fallback.length) {
    out.push('## Passages non adjudiqués (contexte, ne pas citer comme recommandation)', '');
    for (const f of r.fallback) out.push(`- ${f.chunk_id} (score ${f.score}) : ${oneLine(f.text)}`);
    out.push('');
  }
  return out;
}

function chunkLines(c: SearchChunk, safety: Set<string>): string[] {
  const where = [...c.section_titles.map(oneLine), ...(c.pages.length ? [`p. ${c.pages.join(', ')}`] : [])].join(' › ');
  return [`### ${c.id} (${flags(c, safety, c.id)})`, ...quote(c.verbatim), ...(where ? [`- Section : ${where}`] : []), ''];
}

export function searchText(r: SearchResult): string {
  const safety = new Set(r.safety_items);
  const out: string[] = [`# Recherche : ${oneLine(r.query)}`, ''];
  if (!r.units.length) out.push('Aucune unité de connaissance trouvée.', '');
  for (const u of r.units) {
    const meta = [u.source_org, u.year === null ? null : String(u.year)].filter(Boolean).join(', ');
    out.push(`## ${oneLine(u.doc_title ?? 'Source inconnue')}${meta ? ` — ${oneLine(meta)}` : ''}`, ...(u.doc_url ? [u.doc_url] : []), '');
    for (const c of u.chunks) out.push(...chunkLines(c, safety));
  }
  out.push(`Juge : score ${r.judge.score}, ${r.judge.sufficient ? 'suffisant' : 'insuffisant'}`, '', ...tail(r));
  return out.join('\n').trimEnd();
}

export function contextText(r: ContextResponse): string {
  const safety = new Set(r.safety_items);
  const out: string[] = [`# Contexte : ${oneLine(r.query)}`, ''];
  if (r.answer) out.push(r.answer, '');
  if (!r.mkus.length) out.push('Aucune unité de connaissance retenue.', '');
  for (const m of r.mkus) {
    out.push(`## ${m.id} (${flags(m, safety, m.id)}; voies ${m.paths.join(', ') || 'aucune'})`, ...quote(m.verbatim));
    const p = m.provenance;
    if (p) out.push(`- Source : ${oneLine([p.doc_title, p.source_org, p.year === null ? '' : String(p.year)].filter(Boolean).join(', '))}`);
    out.push('');
  }
  out.push(`Juge : score ${r.trace.judge_score} (seuil ${r.trace.judge_cutoff}), ${r.trace.judge_sufficient ? 'suffisant' : 'insuffisant'}`, '', ...tail(r));
  return out.join('\n').trimEnd();
}

export function answerText(r: AnswerResponse): string {
  const out: string[] = [r.answer, ''];
  if (r.sources.length) {
    out.push('## Sources', '');
    for (const s of r.sources) out.push(`- ${oneLine(s.reco_title)} (${oneLine(s.source_name)})${s.deep_link ? ` ${s.deep_link}` : ''}`);
    out.push('');
  }
  for (const e of r.evidence) {
    out.push(`## ${oneLine(e.title)} — ${oneLine(e.org)}${e.year ? `, ${e.year}` : ''}`, '');
    for (const u of e.units) out.push(...quote(u.text), '');
  }
  return out.join('\n').trimEnd();
}
