/**
 * Reading the writer's reply. Model output that is not the JSON asked for is a handled case
 * (decision 11): the text becomes the answer and the status says it was unstructured.
 */
import { citationMarkers, type AnswerDraft, type TableBlock } from '../answer';

const FENCE = '```';

/**
 * The body of a reply wrapped whole in a Markdown code fence (optionally tagged json/JSON), else the
 * text unchanged. Written without a regex on purpose: the former `^\s*```(?:json)?\s*\n?([\s\S]*?)\n?```\s*$`
 * backtracked quadratically when a reply opened a fence and then ran into a long whitespace run with
 * no closing fence — 40,000 newlines after "```" took 0.5 s, 200,000 took 47 s of blocked event loop.
 * Same result: leading whitespace after the tag is dropped, and one newline before the closing fence.
 */
export function stripFences(text: string): string {
  const t = text.trim();
  if (t.length < 2 * FENCE.length || !t.startsWith(FENCE) || !t.endsWith(FENCE)) return text;
  let body = t.slice(FENCE.length, t.length - FENCE.length);
  if (body.startsWith('json') || body.startsWith('JSON')) body = body.slice('json'.length);
  body = body.trimStart();
  return body.endsWith('\n') ? body.slice(0, -1) : body;
}

function parseObject(text: string): Record<string, unknown> | null {
  const candidates = [stripFences(text).trim()];
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const c of candidates) {
    try {
      const v: unknown = JSON.parse(c);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // try the next candidate
    }
  }
  return null;
}

function isCell(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const c = v as { text?: unknown; refs?: unknown };
  return typeof c.text === 'string' && Array.isArray(c.refs) && c.refs.every((r) => Number.isSafeInteger(r));
}

/** Keeps only blocks of the `chart_answer` table shape (§3.9); anything else is dropped. */
export function validBlocks(v: unknown): TableBlock[] {
  if (!Array.isArray(v)) return [];
  return v.filter((b): b is TableBlock => {
    if (!b || typeof b !== 'object') return false;
    const t = b as Partial<TableBlock>;
    return (
      t.kind === 'table' &&
      typeof t.title === 'string' &&
      Array.isArray(t.columns) &&
      t.columns.every((c) => c && typeof c.key === 'string' && typeof c.label === 'string') &&
      Array.isArray(t.rows) &&
      t.rows.every((r) => r && typeof r.cells === 'object' && r.cells !== null && Object.values(r.cells).every(isCell))
    );
  });
}

function blockRefs(blocks: TableBlock[]): number[] {
  return blocks.flatMap((b) => b.rows.flatMap((r) => Object.values(r.cells).flatMap((c) => c.refs))).filter((n) => n > 0);
}

/** Parses the writer's content into an Answer draft; citations come from the answer's `[N]` markers. */
export function parseAnswer(content: string): AnswerDraft {
  const obj = parseObject(content);
  if (obj && typeof obj.answer === 'string') {
    const answer = obj.answer.trim();
    const blocks = validBlocks(obj.blocks);
    const declared = Array.isArray(obj.citations) ? obj.citations.filter((n): n is number => Number.isSafeInteger(n) && (n as number) > 0) : [];
    return { answer, citations: [...new Set([...citationMarkers(answer), ...blockRefs(blocks)])], declared, blocks, rawBlocks: Array.isArray(obj.blocks) ? obj.blocks : [], structured: true };
  }
  const answer = stripFences(content).trim();
  return { answer, citations: citationMarkers(answer), declared: [], blocks: [], rawBlocks: [], structured: false };
}
