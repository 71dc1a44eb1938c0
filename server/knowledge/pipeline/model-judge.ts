/**
 * The model judge (§1.3 step 5): with `judge_enabled` and a configured model, the router's model reads the
 * question and the retained verbatims and answers `{"score": 0–1, "rationale": "…"}`. Output that is not
 * that JSON is a handled case (decision 11): the deterministic proxy's verdict stands and the rationale
 * says why. The verbatims are the only content sent; patient facts never are.
 */
import type { JudgeVerdict } from './judge';
import { round } from './rank';
import type { KnowledgeModel } from './types';

/** Verbatims shown to the judge at most. */
const JUDGE_UNITS = 8;

export const JUDGE_INSTRUCTIONS =
  'Tu évalues si des extraits de recommandations suffisent à répondre à une question clinique. ' +
  'Réponds uniquement par un objet JSON {"score": <nombre entre 0 et 1>, "rationale": "<une phrase>"} : ' +
  '1 = les extraits répondent entièrement, 0 = aucun rapport.';

export function judgeMessages(query: string, verbatims: Array<{ id: string; verbatim: string }>) {
  const units = verbatims.slice(0, JUDGE_UNITS).map((v, i) => `[${i + 1}] ${v.verbatim}`).join('\n');
  return [
    { role: 'system', content: JUDGE_INSTRUCTIONS },
    { role: 'user', content: `Question : ${query}\n\nExtraits :\n${units || '(aucun)'}` },
  ];
}

/** The verdict in a model reply (a fenced block is tolerated), or null. */
export function parseJudgeReply(content: string): JudgeVerdict | null {
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let value: unknown;
  try {
    value = JSON.parse(content.slice(start, end + 1));
  } catch {
    return null;
  }
  const v = value as { score?: unknown; rationale?: unknown };
  if (typeof v.score !== 'number' || !Number.isFinite(v.score) || v.score < 0 || v.score > 1) return null;
  return { score: round(v.score), rationale: `model: ${typeof v.rationale === 'string' ? v.rationale.slice(0, 500) : ''}`.trim() };
}

export interface ModelVerdict {
  verdict: JudgeVerdict;
  kind: 'model' | 'proxy';
  tokensIn: number;
  tokensOut: number;
}

export async function modelJudge(model: KnowledgeModel, query: string, verbatims: Array<{ id: string; verbatim: string }>, proxy: JudgeVerdict, signal?: AbortSignal): Promise<ModelVerdict> {
  const reply = await model.complete(judgeMessages(query, verbatims), signal);
  const parsed = parseJudgeReply(reply.content);
  if (!parsed) return { verdict: { score: proxy.score, rationale: `${proxy.rationale} (the model judge's reply was not a {score, rationale} object; the proxy stands)` }, kind: 'proxy', tokensIn: reply.tokensIn, tokensOut: reply.tokensOut };
  return { verdict: parsed, kind: 'model', tokensIn: reply.tokensIn, tokensOut: reply.tokensOut };
}
