/** Request validation of the Catalyst routes, the timeout header and the warm prefix (pure, table-driven). */
import { parseTimeoutHeader } from '../../../server/catalyst/call-control';
import { parseRawGenerateRequest, parseRoleRequest } from '../../../server/catalyst/request-schemas';
import { warmPrefixMessages } from '../../../server/catalyst/warm-prefix';
import { HubError } from '../../../server/errors';

const user = (content: unknown = 'x') => ({ role: 'user', content });

function refusal(fn: () => unknown): HubError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('parseRoleRequest', () => {
  test.each<[string, unknown]>([
    ['one user message', { messages: [user()] }],
    ['a conversation', { messages: [user(), { role: 'assistant', content: 'SELECT 1' }, user('again')] }],
    ['a response format', { messages: [user()], response_format: { type: 'json_schema', json_schema: { name: 'n', schema: {} } } }],
    ['a null response format', { messages: [user()], response_format: null }],
    ['content parts', { messages: [user([{ type: 'text', text: 'x' }])] }],
  ])('accepts %s', (_name, body) => {
    expect(parseRoleRequest(body)).toBe(body);
  });

  test.each<[string, unknown, string, string | null]>([
    ['a system message', { messages: [{ role: 'system', content: 's' }, user()] }, "'messages.0' is a system message", 'messages'],
    ['a developer message', { messages: [user(), { role: 'developer', content: 's' }] }, "'messages.1' is a system message", 'messages'],
    ['a tool message', { messages: [{ role: 'tool', content: 's' }] }, 'messages.0.role', 'messages'],
    ['a model', { model: 'm', messages: [user()] }, "'model' cannot be set", 'model'],
    ['a temperature', { temperature: 0, messages: [user()] }, "'temperature' cannot be set", 'temperature'],
    ['a dry multiplier', { dry_multiplier: 0, messages: [user()] }, "'dry_multiplier' cannot be set", 'dry_multiplier'],
    ['an unknown field', { messages: [user()], stream: true }, "unknown field 'stream'", 'stream'],
    ['no messages', {}, "'messages' is required", 'messages'],
    ['empty messages', { messages: [] }, "'messages'", 'messages'],
    ['a message without content', { messages: [{ role: 'user' }] }, "'messages.0.content' is required", 'messages'],
    ['numeric content', { messages: [user(5)] }, 'messages.0.content', 'messages'],
    ['a response format that is a string', { messages: [user()], response_format: 'json' }, 'response_format', 'response_format'],
    ['an infinite number in the response format', { messages: [user()], response_format: { type: 'json_schema', json_schema: { schema: { maximum: Infinity } } } }, "'response_format' holds a number that is not finite", 'response_format'],
    ['a NaN inside content parts', { messages: [user([{ type: 'text', text: 'x', weight: NaN }])] }, "'messages' holds a number that is not finite", 'messages'],
    ['an array body', [user()], 'body', null],
    ['no body', undefined, 'body', null],
  ])('refuses %s with 400 naming the field', (_name, body, fragment, param) => {
    const err = refusal(() => parseRoleRequest(body));
    expect(err).toMatchObject({ status: 400, code: 'invalid_request_error', param });
    expect(err.message).toContain(fragment);
  });
});

describe('parseRawGenerateRequest', () => {
  test.each<[string, unknown, boolean]>([
    ['the earlier Catalyst shape', { model: 'm', messages: [user()], temperature: 0, dry_multiplier: 0, response_format: { type: 'json_object' }, max_tokens: 10 }, true],
    ['an OpenAI streaming body', { model: 'm', messages: [user()], stream: true, stream_options: { include_usage: true } }, true],
    ['n: 1', { model: 'm', messages: [user()], n: 1 }, true],
    ['n: 2', { model: 'm', messages: [user()], n: 2 }, false],
    ['no model', { messages: [user()] }, false],
    ['a negative temperature', { model: 'm', messages: [user()], temperature: -1 }, false],
    ['a fractional max_tokens', { model: 'm', messages: [user()], max_tokens: 1.5 }, false],
    ['a message without role', { model: 'm', messages: [{ content: 'x' }] }, false],
    ['an infinite extra knob', { model: 'm', messages: [user()], top_p: Infinity }, false],
    ['a long array of numbers (no stack overflow)', { model: 'm', messages: [user()], logit_bias: Array.from({ length: 300_000 }, () => 1) }, true],
  ])('%s → %p', (_name, body, ok) => {
    if (ok) expect(parseRawGenerateRequest(body)).toBe(body);
    else expect(refusal(() => parseRawGenerateRequest(body))).toMatchObject({ status: 400, code: 'invalid_request_error' });
  });
});

describe('parseTimeoutHeader', () => {
  test.each<[string | undefined, number | null]>([
    [undefined, null],
    ['', null],
    ['   ', null],
    ['1800', 1800],
    ['1800.0', 1800],
    ['0.5', 0.5],
    [' 12.25 ', 12.25],
    ['99999', 3600],
  ])('%p → %p (maximum 3600)', (value, expected) => {
    expect(parseTimeoutHeader(value, 3600)).toBe(expected);
  });

  test.each(['0', '0.0', '-1', 'abc', '1e3', '12s', '.5', 'Infinity', 'NaN'])('%p is a malformed header (400)', (value) => {
    expect(refusal(() => parseTimeoutHeader(value, 3600))).toMatchObject({ status: 400, code: 'invalid_request_error', param: 'X-Request-Timeout-Seconds' });
  });
});

describe('warmPrefixMessages', () => {
  const sys = { role: 'system', content: 'S' };
  test.each<[string, unknown[], unknown[]]>([
    ['cuts the catalog JSON before the question', [sys, user('{"target":1,"catalog":{"v":[]},"question":"q","correlation":{}}')], [sys, user('{"target":1,"catalog":{"v":[]}')]],
    ['keeps a message without the marker', [sys, user('{"catalog":{}}')], [sys, user('{"catalog":{}}')]],
    ['cuts at the first marker only', [sys, user('{"a":1,"question":"x","b":{"c":1,"question":"y"}}')], [sys, user('{"a":1')]],
    ['never empties a message that starts with the marker', [sys, user(',"question":"q"')], [sys, user(',"question":"q"')]],
    ['leaves content parts alone', [sys, user([{ type: 'text', text: ',"question":' }])], [sys, user([{ type: 'text', text: ',"question":' }])]],
    ['only the last message is cut', [sys, user('{"a":1,"question":"old"}'), { role: 'assistant', content: 'SELECT 1' }], [sys, user('{"a":1,"question":"old"}'), { role: 'assistant', content: 'SELECT 1' }]],
  ])('%s', (_name, messages, expected) => {
    expect(warmPrefixMessages(messages as any)).toEqual(expected);
  });
});
