/**
 * Scripting the model checks on the fake router: the prompt markers that tell the hub's calls apart,
 * and checkers that answer what they were asked (each PAIR of a fact-check request gets its facts).
 */
import type { FakeRouter, RecordedRequest, ScriptedReply } from './fake-router';

/** Text only one kind of hub call carries (from the prompts and the stage layouts). */
export const MARK = {
  agreement: 'second, independent answer',
  grounding: 'strict clinical fact checker',
  inDepthReview: '=== IN-DEPTH CLAIMS ===',
  answerReview: '=== DRAFT ANSWER ===',
  inDepth: 'DIRECT ANSWER (elaborate',
} as const;

export type Fact = { fact: string; status: 'found' | 'differs' | 'not_found'; source_says: string };
export interface AskedPair {
  pair: number;
  sources: string;
  statement: string;
}

export function userText(req: RecordedRequest): string {
  return (req.body?.messages ?? []).map((m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

/** The PAIRs a fact-check (or folded review) request asks about, in order. */
export function askedPairs(req: RecordedRequest): AskedPair[] {
  const out: AskedPair[] = [];
  for (const m of userText(req).matchAll(/PAIR (\d+):\nSOURCE:\n([\s\S]*?)\nSTATEMENT: ([^\n]*)/g)) out.push({ pair: Number(m[1]), sources: m[2], statement: m[3] });
  return out;
}

export function isCall(req: RecordedRequest, mark: keyof typeof MARK): boolean {
  return req.path.endsWith('/chat/completions') && userText(req).includes(MARK[mark]);
}

/** A fact checker that judges each asked pair with `judge`. */
export function factChecker(judge: (pair: AskedPair) => Fact[]): (req: RecordedRequest) => string {
  return (req) => JSON.stringify({ pairs: askedPairs(req).map((p) => ({ pair: p.pair, facts: judge(p) })) });
}

export const found = (fact: string): Fact => ({ fact, status: 'found', source_says: '' });
export const differs = (fact: string, says: string): Fact => ({ fact, status: 'differs', source_says: says });
export const notFound = (fact: string): Fact => ({ fact, status: 'not_found', source_says: '' });

export const CLEAN_REVIEW = JSON.stringify({ answer_ok: true, errors: [], corrected_answer: '' });
export const CLEAN_INDEPTH_REVIEW = JSON.stringify({ drop: [], issues: '' });

export interface CheckedScript {
  answer: string;
  citations?: number[];
  blocks?: unknown[];
  claims?: string[];
  review?: Partial<ScriptedReply>;
  inDepthReview?: Partial<ScriptedReply>;
  grounding?: Partial<ScriptedReply>;
  agreement?: Partial<ScriptedReply>;
  second?: Partial<ScriptedReply> & { model?: string };
}

/**
 * Scripts one checked turn. Order matters (first match wins): the agreement check carries the grounding
 * prompt too, and the In-Depth review carries a direct answer.
 */
export function scriptChecked(router: FakeRouter, s: CheckedScript): void {
  const everyFound = factChecker((p) => [found(p.statement)]);
  const replies: ScriptedReply[] = [
    { match: { contains: MARK.agreement }, reply: everyFound, ...s.agreement },
    { match: { contains: MARK.grounding }, reply: everyFound, ...s.grounding },
    { match: { contains: MARK.inDepthReview }, content: CLEAN_INDEPTH_REVIEW, ...s.inDepthReview },
    { match: { contains: MARK.answerReview }, content: CLEAN_REVIEW, ...s.review },
    { match: { contains: MARK.inDepth }, content: JSON.stringify({ claims: s.claims ?? [] }) },
  ];
  if (s.second) {
    const { model = 'qwen3.5-9b', ...rest } = s.second;
    replies.push({ match: { model }, ...rest });
  }
  replies.push({ content: JSON.stringify({ answer: s.answer, citations: s.citations ?? [], blocks: s.blocks ?? [] }) });
  router.script(...replies);
}
