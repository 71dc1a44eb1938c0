/**
 * Chat body validation (decisions 11 and 14), two fixes found by the input fuzz test: non-finite
 * numbers (1e309 parses as Infinity) are refused, and nesting depth is bounded before anything walks
 * the body recursively — a 10,000-level message content used to reach JSON.stringify and end as a 500
 * `internal_error` (non-product) or a fallback Answer (product).
 */
import { HubError } from '../../../server/errors';
import { parseChatRequest } from '../../../server/chat/request-schema';
import { MAX_BODY_DEPTH, tooDeepField } from '../../../server/wire/body-depth';

const base = { model: 'single-12b-bare', messages: [{ role: 'user', content: 'q' }] };

/** A value of exactly `levels` nested arrays around a leaf, built without recursion. */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

function rejection(body: unknown): HubError {
  try {
    parseChatRequest(body);
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error('expected parseChatRequest to throw');
}

describe('parseChatRequest numbers', () => {
  // JSON.parse reads 1e309 as Infinity; without strictNumbers ajv took it as a number and an integer,
  // and the hub went on with temperature/max_tokens Infinity (serialised to the router as null).
  test.each([
    ['{"temperature": 1e309}', 'temperature'],
    ['{"temperature": -1e309}', 'temperature'],
    ['{"max_tokens": 1e309}', 'max_tokens'],
    ['{"max_tokens": -1e309}', 'max_tokens'],
  ])('%s is 400 invalid_request_error naming the field', (raw, param) => {
    expect(rejection({ ...base, ...JSON.parse(raw) })).toMatchObject({ code: 'invalid_request_error', status: 400, param });
  });

  test.each([
    ['{"temperature": 0}'], ['{"temperature": -0}'], ['{"temperature": 1.7976931348623157e308}'], ['{"max_tokens": 0}'], ['{"max_tokens": -5}'], ['{"max_tokens": 4096}'], ['{"max_tokens": 1e20}'],
  ])('%s is accepted', (raw) => {
    expect(() => parseChatRequest({ ...base, ...JSON.parse(raw) })).not.toThrow();
  });
});

describe('parseChatRequest nesting bound', () => {
  test('a body exactly at the bound is accepted; one level more is 400 naming the field', () => {
    // body (1) → field value: the array levels start at 2.
    expect(() => parseChatRequest({ ...base, extra: nested(MAX_BODY_DEPTH - 1) })).not.toThrow();
    const err = rejection({ ...base, extra: nested(MAX_BODY_DEPTH) });
    expect(err).toMatchObject({ code: 'invalid_request_error', status: 400, param: 'extra' });
    expect(err.message).toContain(`more than ${MAX_BODY_DEPTH} levels`);
  });

  test.each([
    ['message content', (d: unknown) => ({ ...base, messages: [{ role: 'user', content: d }] }), 'messages'],
    ['context.session', (d: unknown) => ({ ...base, context: { session: d } }), 'context'],
    ['response_format', (d: unknown) => ({ ...base, response_format: { type: 'json_schema', json_schema: { schema: d } } }), 'response_format'],
    ['the model field (a type error too)', (d: unknown) => ({ ...base, model: d }), 'model'],
  ])('10,000 levels in %s: 400 invalid_request_error, no stack overflow', (_name, make, param) => {
    expect(rejection(make(nested(10_000)))).toMatchObject({ code: 'invalid_request_error', status: 400, param });
  });

  test('a top-level array nested 200,000 levels is refused without recursion', () => {
    const err = rejection(JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`));
    expect(err).toMatchObject({ code: 'invalid_request_error', status: 400, param: null });
  });

  test('tooDeepField: realistic OpenAI bodies (content parts, a strict JSON schema) stay within the bound', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' }, blocks: { type: 'array', items: { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { cells: { type: 'object', additionalProperties: { type: 'object', properties: { refs: { type: 'array', items: { type: 'integer' } } } } } } } } } } } } };
    const body = { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }], response_format: { type: 'json_schema', json_schema: { name: 'chart_answer', strict: true, schema } } };
    expect(tooDeepField(body)).toBeNull();
    expect(() => parseChatRequest(body)).not.toThrow();
    // `__proto__` parsed from JSON is an own data key: it is walked like any other.
    expect(tooDeepField(JSON.parse(`{"__proto__": ${JSON.stringify(nested(MAX_BODY_DEPTH))}}`))).toBe('__proto__');
  });
});
