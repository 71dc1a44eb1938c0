/**
 * Adjudication through the router (§1.3 step 6, `agent_enabled`): the model answers the question from the
 * retained verbatims only, citing each by its number. Its reply is kept only when every citation names a
 * verbatim it was shown and at least one does; the numbers then become MKU ids, the citable unit. Anything
 * else is a handled case (decision 11): the extractive answer stands and the trace says why. Like the judge,
 * the model sees the question and the verbatims, never the patient's facts.
 */
import { extractiveAnswer, type Quotable } from './answer';
import type { KnowledgeModel } from './types';

/** Verbatims shown to the model at most. */
export const ANSWER_UNITS = 8;

export const ANSWER_INSTRUCTIONS =
  'Tu réponds à une question clinique uniquement à partir des extraits de recommandations numérotés fournis. ' +
  "Cite chaque affirmation par le numéro de l'extrait entre crochets, par exemple [1] ou [2][3]. " +
  "N'ajoute rien qui ne figure pas dans les extraits ; s'ils ne suffisent pas, dis-le.";

export function answerMessages(query: string, units: readonly Quotable[]) {
  const numbered = units.slice(0, ANSWER_UNITS).map((u, i) => `[${i + 1}] ${u.verbatim}`).join('\n');
  return [
    { role: 'system', content: ANSWER_INSTRUCTIONS },
    { role: 'user', content: `Question : ${query}\n\nExtraits :\n${numbered}` },
  ];
}

/** `[n]` markers of a reply, in order (`[2][3]` and `[2, 3]` both count). */
function citedNumbers(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g)) {
    for (const part of m[1].split(',')) out.push(Number(part.trim()));
  }
  return out;
}

/** The reply with its numbers turned into MKU ids, or null when it cites nothing or cites what it was not shown. */
export function adjudicatedText(reply: string, units: readonly Quotable[]): string | null {
  const text = reply.trim();
  const shown = Math.min(units.length, ANSWER_UNITS);
  const cited = citedNumbers(text);
  if (text === '' || cited.length === 0 || cited.some((n) => !Number.isInteger(n) || n < 1 || n > shown)) return null;
  return text.replace(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g, (_all, list: string) => list.split(',').map((n) => `[${units[Number(n.trim()) - 1].id}]`).join(''));
}

export interface AdjudicatedAnswer {
  answer: string;
  kind: 'model' | 'extractive';
  /** Why the model's reply was not used (null when it was, or when no model ran). */
  unusable: string | null;
  tokensIn: number;
  tokensOut: number;
}

/** With a model and something to quote: the model's cited answer, else the extractive one. */
export async function adjudicate(model: KnowledgeModel | null, query: string, units: readonly Quotable[], signal?: AbortSignal): Promise<AdjudicatedAnswer> {
  const extractive = extractiveAnswer([...units]);
  if (!model || units.length === 0) return { answer: extractive, kind: 'extractive', unusable: null, tokensIn: 0, tokensOut: 0 };
  const reply = await model.complete(answerMessages(query, units), signal);
  const text = adjudicatedText(reply.content, units);
  if (text === null) {
    return { answer: extractive, kind: 'extractive', unusable: 'the model reply cited no shown verbatim (or one it was not shown)', tokensIn: reply.tokensIn, tokensOut: reply.tokensOut };
  }
  return { answer: text, kind: 'model', unusable: null, tokensIn: reply.tokensIn, tokensOut: reply.tokensOut };
}
