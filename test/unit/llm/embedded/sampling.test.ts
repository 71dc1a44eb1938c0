import { DEFAULTS, responseSchema, samplingOf } from '../../../../server/llm/embedded/sampling';
import type { ChatRequest } from '../../../../server/llm/types';

const req = (extra: Record<string, unknown>): ChatRequest => ({ model: 'm', messages: [], ...extra });

describe('samplingOf', () => {
  test('llama-server defaults when the body sets nothing', () => {
    expect(samplingOf(req({}))).toEqual({ temperature: DEFAULTS.temperature, topK: 40, topP: 0.95, minP: 0.05, maxTokens: null });
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['temperature 0 is kept (greedy)', { temperature: 0 }, { temperature: 0 }],
    ['a negative temperature is 0', { temperature: -1 }, { temperature: 0 }],
    ['top_p above 1 is 1', { top_p: 3 }, { topP: 1 }],
    ['min_p below 0 is 0', { min_p: -0.5 }, { minP: 0 }],
    ['a fractional top_k is ignored', { top_k: 2.5 }, { topK: 40 }],
    ['max_tokens', { max_tokens: 12 }, { maxTokens: 12 }],
    ['n_predict when max_tokens is absent', { n_predict: 7 }, { maxTokens: 7 }],
    ['a negative max_tokens means no limit', { max_tokens: -1 }, { maxTokens: null }],
    ['a seed', { seed: 42 }, { seed: 42 }],
    ['a string is not a number', { temperature: '0.1' }, { temperature: DEFAULTS.temperature }],
  ])('%s', (_name, body, expected) => {
    expect(samplingOf(req(body))).toMatchObject(expected);
  });

  test.each<[string, Record<string, unknown>, unknown]>([
    ['repeat penalty 1 changes nothing: absent', { repeat_penalty: 1 }, undefined],
    ['repeat penalty over the last 64 tokens', { repeat_penalty: 1.15 }, { penalty: 1.15, lastTokens: 64, frequencyPenalty: 0, presencePenalty: 0 }],
    ['repeat_last_n 0 disables it', { repeat_penalty: 1.3, repeat_last_n: 0 }, undefined],
    ['frequency and presence penalties alone', { frequency_penalty: 0.5, presence_penalty: 0.2 }, { penalty: 1, lastTokens: 64, frequencyPenalty: 0.5, presencePenalty: 0.2 }],
  ])('%s', (_name, body, expected) => {
    expect(samplingOf(req(body)).repeat).toEqual(expected);
  });

  test.each<[string, Record<string, unknown>, unknown]>([
    ['DRY multiplier 0 (the default) is off', { dry_multiplier: 0 }, undefined],
    ['DRY with llama-server defaults, the whole context', { dry_multiplier: 0.8 }, { strength: 0.8, base: 1.75, allowedLength: 2, lastTokens: null }],
    ['DRY knobs', { dry_multiplier: 0.5, dry_base: 2, dry_allowed_length: 3, dry_penalty_last_n: 256 }, { strength: 0.5, base: 2, allowedLength: 3, lastTokens: 256 }],
  ])('%s', (_name, body, expected) => {
    expect(samplingOf(req(body)).dry).toEqual(expected);
  });
});

describe('responseSchema', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  test.each<[string, unknown, unknown]>([
    ['no response_format', undefined, null],
    ['text', { type: 'text' }, null],
    ['json_schema', { type: 'json_schema', json_schema: { name: 'x', schema } }, schema],
    ['json_schema without a schema is any JSON', { type: 'json_schema', json_schema: { name: 'x' } }, 'any_json'],
    ['json_object', { type: 'json_object' }, 'any_json'],
    ['json_object with llama-server\'s schema', { type: 'json_object', schema }, schema],
  ])('%s', (_name, rf, expected) => {
    expect(responseSchema(req(rf === undefined ? {} : { response_format: rf }))).toEqual(expected);
  });
});
