import { SharedBlock, blockMessage, blockParts, encodeJsonBody } from '../../../server/llm/shared-block';
import { chatCacheKey } from '../../../server/llm/tokens';

const decode = (body: string | Buffer) => JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));

const TEXTS: Array<[string, string]> = [
  ['plain text', 'Patient records (most recent first):\n[1] (2026-01-02) Weight 71 kg'],
  ['quotes and backslashes', 'He said "stop" \\ then \\"left\\"'],
  ['control characters', 'tab\there\r\nnul\u0000bell\u0007 form\ffeed'],
  ['line and paragraph separators', 'a\u2028b\u2029c'],
  ['non-ASCII', 'Hämoglobin 12,5 g/dl — 體重 71 kg 🩺'],
  ['a lone high surrogate at the end', 'ends badly \ud83d'],
  ['a lone low surrogate', '\ude00 starts badly'],
  ['empty', ''],
];

describe('encodeJsonBody', () => {
  test.each(TEXTS)('a block message over %s parses to the same body as JSON.stringify', (_name, text) => {
    for (const [, tail] of TEXTS) {
      const block = new SharedBlock(text);
      const body = { model: 'm', messages: [blockMessage('user', block, tail)], temperature: 0.2, response_format: { type: 'json_object', schema: { a: '"x"' } } };
      expect(decode(encodeJsonBody(body))).toEqual(JSON.parse(JSON.stringify(body)));
    }
  });

  test('mixed messages keep their order; fields other than messages survive', () => {
    const block = new SharedBlock('CONTEXT "quoted"\n');
    const messages = [
      { role: 'system', content: 'You are terse.' },
      blockMessage('user', block, '\n\nQ1'),
      { role: 'assistant', content: [{ type: 'text', text: 'A1' }] },
      blockMessage('user', block, '\n\nQ2 ü'),
    ];
    const body = { model: 'gemma', messages, stream: false, max_tokens: 10, tools: undefined };
    expect(decode(encodeJsonBody(body))).toEqual(JSON.parse(JSON.stringify(body)));
  });

  test('a body with only messages, or with no block message, is plain JSON', () => {
    const block = new SharedBlock('x');
    expect(decode(encodeJsonBody({ messages: [blockMessage('user', block, 'y')] }))).toEqual({ messages: [{ role: 'user', content: 'xy' }] });
    const plain = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(encodeJsonBody(plain)).toBe(JSON.stringify(plain));
    expect(encodeJsonBody({ model: 'm' })).toBe('{"model":"m"}');
  });

  test('the block is encoded once however many bodies carry it', () => {
    const block = new SharedBlock('shared context');
    const spy = jest.spyOn(JSON, 'stringify');
    try {
      for (let i = 0; i < 5; i++) encodeJsonBody({ model: 'm', messages: [blockMessage('user', block, `\n\nstage ${i}`)] });
      expect(spy.mock.calls.filter(([v]) => v === 'shared context')).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('blockMessage', () => {
  test('content is block + tail, the message is frozen and remembers its parts', () => {
    const block = new SharedBlock('ctx');
    const m = blockMessage('user', block, '\n\ntail');
    expect(m).toEqual({ role: 'user', content: 'ctx\n\ntail' });
    expect(Object.isFrozen(m)).toBe(true);
    expect(blockParts(m)).toEqual({ block, tail: '\n\ntail' });
    expect(blockParts({ ...m })).toBeUndefined();
    expect(blockParts(null)).toBeUndefined();
  });
});

describe('chatCacheKey with block messages', () => {
  const key = (block: SharedBlock, tail: string, role = 'user') => chatCacheKey({ model: 'm', messages: [blockMessage(role, block, tail)] });
  test.each([
    ['the same block text and tail', () => key(new SharedBlock('A'), 't'), () => key(new SharedBlock('A'), 't'), true],
    ['another tail', () => key(new SharedBlock('A'), 't'), () => key(new SharedBlock('A'), 'u'), false],
    ['another block text', () => key(new SharedBlock('A'), 't'), () => key(new SharedBlock('B'), 't'), false],
    ['another role', () => key(new SharedBlock('A'), 't'), () => key(new SharedBlock('A'), 't', 'system'), false],
    ['text moved between block and tail', () => key(new SharedBlock('AB'), 'C'), () => key(new SharedBlock('A'), 'BC'), false],
  ])('%s', (_name, a, b, same) => {
    expect(a() === b()).toBe(same);
  });
});
