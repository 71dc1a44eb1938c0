/**
 * Extractive answers (§6.1): with no model configured, `/v1/answer` and `/v2/retrieve` (and `/v2/context`
 * when `agent_enabled`) answer by quoting the top verbatims — the only citable unit — each cited by its
 * MKU id and source. Nothing is paraphrased, so nothing can be invented.
 */
export const NOT_FOUND_ANSWER = "Je n'ai pas trouvé de recommandation répondant à cette question dans la base de connaissances.";

/** How many verbatims an extractive answer quotes. */
export const EXTRACTIVE_QUOTES = 3;

export interface Quotable {
  id: string;
  verbatim: string;
  source?: string | null;
}

/** One line per quote; a verbatim's own line breaks stay inside its blockquote. */
export function extractiveAnswer(items: Quotable[], max = EXTRACTIVE_QUOTES): string {
  const top = items.slice(0, max);
  if (top.length === 0) return NOT_FOUND_ANSWER;
  const quotes = top.map((q) => `> ${q.verbatim.split(/\r\n|\r|\n/).join('\n> ')}\n>\n> — [${q.id}]${q.source ? ` ${q.source}` : ''}`);
  return ['Extraits des recommandations les plus pertinentes (réponse extractive, sans modèle) :', ...quotes].join('\n\n');
}

export function sourceLabel(p: { source_org?: string | null; year?: number | null; doc_title?: string | null; section_titles?: string[] } | undefined): string | null {
  if (!p) return null;
  const head = [p.source_org, p.year].filter((x) => x !== null && x !== undefined && x !== '').join(' ');
  const where = [p.doc_title, p.section_titles?.[0]].filter(Boolean).join(' › ');
  return [head, where].filter(Boolean).join(', ') || null;
}
