/**
 * Decision 27's bound: a later stage's prompt tokens ≤ the Answer's exact count + the bytes of the stage's own
 * text (+ the template's bytes after the context), proven only where the model's template seals the context
 * message off with a special token. Checked against the fake router's Gemma 4 tokenization, which cuts at
 * special tokens as llama.cpp does, over text that could break a weaker argument.
 */
import { buildContextMessage, stageMessages, type PromptLayout } from '../../../server/context/layout';
import { PARTITION_PROBE_CONTEXT, PARTITION_PROBE_TAILS, splitRender } from '../../../server/llm/context-partition';
import { createFitBounds, stageTextBytes, type AnswerAnchor } from '../../../server/llm/fit-bound';
import type { ChatRequest, RouterClient } from '../../../server/llm/types';
import { fakeApplyTemplate, fakeGemma4Template, fakeTokenize, fakeTokenizeSpecial } from '../../support/fake-router';

type Template = (messages: ChatRequest['messages']) => string;
const MODEL = 'gemma-4-12b';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const render = fakeGemma4Template as unknown as Template;
/** The router's count of a chat prompt: rendered, then tokenized with special tokens parsed. */
const chatTokens = (req: ChatRequest, template: Template = render) => fakeTokenizeSpecial(template(req.messages)).length;

function router(over: { template?: Template; specials?: boolean; emptyPiece?: boolean } = {}) {
  const calls = { tokenize: 0, template: 0 };
  const r = {
    tokenize: async ({ content, parse_special }: { content: string; parse_special?: boolean }) => {
      calls.tokenize++;
      const pieces = (parse_special !== false && over.specials !== false ? fakeTokenizeSpecial(content) : fakeTokenize(content)).map((p) => Buffer.from(p, 'utf8'));
      if (over.emptyPiece) pieces.push(Buffer.alloc(0));
      return { count: pieces.length, pieces };
    },
    applyTemplate: async ({ messages }: { messages: ChatRequest['messages'] }) => {
      calls.template++;
      return (over.template ?? render)(messages);
    },
  } as unknown as RouterClient;
  return { router: r, calls };
}

const request = (block: ReturnType<typeof buildContextMessage>, instructions: string, question: string, layout: PromptLayout = 'split'): ChatRequest => ({
  model: MODEL,
  messages: stageMessages(block, { instructions, history: [{ role: 'user', content: 'Earlier? <turn|>' }, { role: 'assistant', content: 'Yes [1].' }], question }, layout),
});

const CASES: Array<[string, string, string, string]> = [
  ['plain English', '[1] (2026-03-02) Finding — Weight (kg): 71 kg\n[2] (2026-01-10) Finding — Weight (kg): 74 kg', 'Answer as JSON.', 'Review the draft: weight fell from 74 to 71 kg [2][1].'],
  ['multibyte text', '[1] (2026-03-02) Befund — Größe 1,82 m; Créatinine 88 µmol/L; 血压正常。体重下降 😀👍🏽', 'Réponds en JSON — ½ µg/L ±', '检查：体重下降 😀 Давление в норме'],
  ['special-token look-alikes in the chart', '[1] (2026-03-02) Note — patient typed <|turn>model\n<turn|> and <end_of_turn> <|im_end|>', 'Answer as JSON.', 'Review <turn|><|turn>user'],
  ['a look-alike split across the context and the stage text', '[1] (2026-03-02) Note — ends with <|tu', 'rn>model\nAnswer.', 'rn>user <turn|'],
  ['stage text made of markers', '[1] (2026-03-02) Finding — Pulse: 72', '<turn|>'.repeat(50), '<|turn>'.repeat(50)],
  ['whitespace runs and line breaks', `[1] (2026-03-02) Finding — Weight: 71 kg${' '.repeat(300)}\n\n\r\n\t`, `${'\n'.repeat(200)}Answer.`, `${' \t'.repeat(400)}Review.`],
  ['a long stage text', '[1] (2026-03-02) Finding — Weight: 71 kg', 'Answer as JSON.', `${'Check each claim against its record; '.repeat(400)}`],
];

describe('anchoredBound', () => {
  test.each(CASES)('%s: the bound holds against the exact count and is the Answer count plus the stage bytes', async (_name, chart, answerText, stageText) => {
    const { router: r } = router();
    const fit = createFitBounds(r);
    expect(await fit.partitions(MODEL)).toBe(true);
    const block = buildContextMessage({ temporalFacts: 'Temporal facts — latest weight 71 kg', chart });
    const answer = request(block, answerText, 'How has the weight changed?');
    const anchor: AnswerAnchor = { model: MODEL, block, tokens: chatTokens(answer) };
    const stage = request(block, stageText, 'How has the weight changed?');
    const bound = await fit.anchoredBound(stage, anchor);
    // The template's text after the context: between the two messages, and after the second one.
    const probe = splitRender(render([{ role: 'user', content: PARTITION_PROBE_CONTEXT }, { role: 'user', content: PARTITION_PROBE_TAILS[0] }]), PARTITION_PROBE_CONTEXT, PARTITION_PROBE_TAILS[0])!;
    expect(bound).toBe(anchor.tokens + bytes(probe.between) + bytes(probe.after) + 2 + bytes(stage.messages[1].content as string));
    expect(chatTokens(stage)).toBeLessThanOrEqual(bound!);
  });

  test('the partition probe is asked once per model: two renders and the text between them counted two ways', async () => {
    const { router: r, calls } = router();
    const fit = createFitBounds(r);
    await Promise.all([fit.partitions(MODEL), fit.partitions(MODEL), fit.partitions(MODEL)]);
    // One /tokenize more: the byte premise the stage text's bytes rest on.
    expect(calls).toEqual({ template: 2, tokenize: 3 });
  });

  const block = buildContextMessage({ chart: '[1] (2026-03-02) Finding — Weight (kg): 71 kg' });
  const answer = request(block, 'Answer.', 'Weight?');
  const anchor: AnswerAnchor = { model: MODEL, block, tokens: chatTokens(answer) };
  const stage = request(block, 'Review.', 'Weight?');

  test.each<[string, () => ReturnType<typeof router>, ChatRequest]>([
    ['a template without special tokens between messages (Llama 2)', () => router({ template: fakeApplyTemplate as unknown as Template }), stage],
    ['a router that parses no special tokens', () => router({ specials: false }), stage],
    ['a template that refuses two user messages', () => router({ template: (m) => (m.length > 1 ? (() => { throw new Error('Conversation roles must alternate'); })() : render(m)) }), stage],
    ['a template whose first message depends on the second', () => router({ template: (m) => render(m.map((x, i) => (i === 0 ? { ...x, content: `${String(x.content)}${String(m[1]?.content ?? '').length}` } : x))) }), stage],
    ['a tokenizer with a token that carries no byte', () => router({ emptyPiece: true }), stage],
    ['the joined layout', () => router(), request(block, 'Review.', 'Weight?', 'joined')],
    ['another model', () => router(), { ...stage, model: 'qwen3.5-9b' }],
    ['another context block', () => router(), request(buildContextMessage({ chart: '[1] (2026-03-02) Finding — Weight (kg): 71 kg' }), 'Review.', 'Weight?')],
    ['a request with tools', () => router(), { ...stage, tools: [{ type: 'function' }] }],
  ])('no proof for %s', async (_name, make, req) => {
    const fit = createFitBounds(make().router);
    expect(await fit.anchoredBound(req, anchor)).toBeNull();
  });
});

describe('stageTextBytes', () => {
  const block = buildContextMessage({ chart: '[1] x' });
  const anchor: AnswerAnchor = { model: MODEL, block, tokens: 10 };
  test.each<[string, ChatRequest, number | null]>([
    ['the split layout on the anchor block', request(block, 'Réview.', 'Q?'), bytes(request(block, 'Réview.', 'Q?').messages[1].content as string)],
    ['a third message', { model: MODEL, messages: [...request(block, 'R', 'Q').messages, { role: 'user', content: 'more' }] }, null],
    ['a system message second', { model: MODEL, messages: [request(block, 'R', 'Q').messages[0], { role: 'system', content: 'R' }] }, null],
    ['non-text stage content', { model: MODEL, messages: [request(block, 'R', 'Q').messages[0], { role: 'user', content: [{ type: 'text', text: 'R' }] }] }, null],
    ['the block message with a tail', { model: MODEL, messages: [...request(block, 'R', 'Q', 'joined').messages, { role: 'user', content: 'x' }] }, null],
  ])('%s', (_name, req, expected) => {
    expect(stageTextBytes(req, anchor)).toBe(expected);
  });
});
