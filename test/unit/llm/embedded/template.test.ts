import { ChatTemplate, CHATML_TEMPLATE } from '../../../../server/llm/embedded/template';
import { HubError } from '../../../../server/errors';
import { commonPrefixLength } from '../../../../server/llm/embedded/loaded-model';

/** The tiny test model's Llama-2 template (shared/models/README.md), as its GGUF carries it. */
const LLAMA2 = [
  "{%- for message in messages -%}",
  "{%- if message['role'] == 'system' -%}{{- '<<SYS>>\\n' + message['content'] + '\\n<</SYS>>\\n\\n' -}}",
  "{%- elif message['role'] == 'user' -%}{{- '[INST] ' + message['content'] + ' [/INST]' -}}",
  "{%- elif message['role'] == 'assistant' -%}{{- ' ' + message['content'] + ' ' + eos_token -}}",
  "{%- endif -%}{%- endfor -%}",
].join('');

describe('ChatTemplate', () => {
  const tokens = { bos: '<s>', eos: '</s>' };
  test.each<[string, string | undefined, Array<{ role: string; content: unknown }>, string]>([
    ['the model\'s own template', LLAMA2, [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hi there' }], '<<SYS>>\nYou are terse.\n<</SYS>>\n\n[INST] Hi there [/INST]'],
    ['assistant turns end with the EOS text', LLAMA2, [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }], '[INST] a [/INST] b </s>[INST] c [/INST]'],
    ['content parts are joined text', LLAMA2, [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url' }, { type: 'text', text: 'y' }] }], '[INST] xy [/INST]'],
    ['no template: ChatML with the generation prompt', undefined, [{ role: 'user', content: 'hi' }], '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n'],
    ['a leading BOS text is left to tokenisation', '{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}', [{ role: 'user', content: 'hi' }], 'hi'],
  ])('%s', (_name, source, messages, expected) => {
    expect(new ChatTemplate(source, tokens).render(messages)).toBe(expected);
  });

  test('a template that raises is a clear router_error, not a crash', () => {
    const strict = new ChatTemplate("{% if messages[0]['role'] != 'user' %}{{ raise_exception('Conversation must start with a user turn') }}{% endif %}", tokens);
    expect(() => strict.render([{ role: 'assistant', content: 'x' }])).toThrow(HubError);
    expect(() => strict.render([{ role: 'assistant', content: 'x' }])).toThrow('The model\'s chat template rejected the messages: Conversation must start with a user turn');
  });

  test('ChatML is llama.cpp\'s fallback template', () => {
    expect(CHATML_TEMPLATE).toContain('<|im_start|>');
  });
});

describe('commonPrefixLength', () => {
  test.each<[number[], number[], number]>([
    [[], [], 0],
    [[1, 2, 3], [1, 2, 3], 3],
    [[1, 2, 3], [1, 2], 2],
    [[1, 2], [1, 2, 3], 2],
    [[1, 2, 3], [1, 9, 3], 1],
    [[4], [5], 0],
  ])('%j and %j share %i', (a, b, n) => {
    expect(commonPrefixLength(a, b)).toBe(n);
  });
});
