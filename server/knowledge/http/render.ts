/**
 * `Accept` renderings of `/v2/retrieve` (§1.4, §6.3): `text/markdown` is the answer plus a provenance
 * section; `text/html` is that same Markdown through a deliberately small renderer that escapes every
 * character of content *before* it adds any markup, so an MKU holding `<script>` shows as text.
 * Only headings, block quotes, list items, paragraphs, `**bold**` and `` `code` `` are understood.
 */
import type { RetrieveResponse } from '../pipeline/types';

export function retrieveMarkdown(r: RetrieveResponse): string {
  const out: string[] = [`# ${oneLine(r.query)}`, '', r.answer, ''];
  if (r.mkus.length) {
    out.push('## Provenance', '');
    for (const m of r.mkus) {
      out.push(`### ${m.id}`, '');
      for (const line of m.verbatim.split(/\r\n|\r|\n/)) out.push(`> ${line}`);
      out.push('');
      const where = [m.doc_title, m.section_title].filter(Boolean).map((x) => oneLine(x!)).join(' › ');
      out.push(`- Source : ${where || 'inconnue'}`, `- Voie : \`${m.via}\`, score ${m.score}`, '');
    }
  }
  if (r.cross_refs.length) {
    out.push('## Références croisées', '');
    for (const c of r.cross_refs) out.push(`- \`${c.id1}\` ${c.polarity} \`${c.id2}\``);
    out.push('');
  }
  return out.join('\n');
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Inline markup on already-escaped text (the markers themselves are not escapable characters). */
function inline(escaped: string): string {
  return escaped.replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

export function markdownToHtml(md: string, title: string): string {
  const html: string[] = [];
  let para: string[] = [];
  let quote: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (para.length) html.push(`<p>${para.map((l) => inline(escapeHtml(l))).join('<br>')}</p>`);
    if (quote.length) html.push(`<blockquote>${quote.map((l) => inline(escapeHtml(l))).join('<br>')}</blockquote>`);
    if (list.length) html.push(`<ul>${list.map((l) => `<li>${inline(escapeHtml(l))}</li>`).join('')}</ul>`);
    para = [];
    quote = [];
    list = [];
  };
  for (const line of md.split('\n')) {
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    if (heading) {
      flush();
      const n = heading[1].length;
      html.push(`<h${n}>${inline(escapeHtml(heading[2]))}</h${n}>`);
    } else if (line.startsWith('>')) {
      if (para.length || list.length) flush();
      quote.push(line.replace(/^> ?/, ''));
    } else if (line.startsWith('- ')) {
      if (para.length || quote.length) flush();
      list.push(line.slice(2));
    } else if (line.trim() === '') {
      flush();
    } else {
      if (quote.length || list.length) flush();
      para.push(line);
    }
  }
  flush();
  return `<!doctype html>\n<html lang="fr"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>\n${html.join('\n')}\n</body></html>\n`;
}
