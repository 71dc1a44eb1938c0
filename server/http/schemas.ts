/**
 * JSON Schemas of the wire, used both by ajv (compiled once) and by /openapi.json (decision 14),
 * so the document and the validator cannot drift.
 */
import { compileConstant, constantSchemaAjv } from '../json-schemas';
import { HubError } from '../errors';
import type { ChatCompletionRequest } from '../engine/types';

export const CHAT_REQUEST_SCHEMA = {
  $id: 'ChatCompletionRequest',
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 512, description: 'Profile id (see GET /v1/models) or low-level leg id.' },
    messages: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', properties: { role: { type: 'string' } }, required: ['role'] },
      description: 'OpenAI chat messages; the chart may be one of them (Patient records (most recent first): …).',
    },
    response_format: { type: ['object', 'null'], description: 'Honoured only by low-level legs.' },
    temperature: { type: ['number', 'null'], minimum: 0 },
    max_tokens: { type: ['integer', 'null'] },
    stream: { type: 'boolean', default: false },
    stream_options: { type: ['object', 'null'] },
    patient: { type: ['string', 'null'], maxLength: 256 },
    context: {
      type: ['object', 'null'],
      properties: {
        sources: {},
        source: {},
        temporal: {},
        temporal_gate: {},
        require_product_profile: { type: 'boolean' },
        session: {},
        request_id: {},
        message_id: {},
      },
    },
  },
  additionalProperties: true,
} as const;

const ERROR_SCHEMA = {
  $id: 'Error',
  type: 'object',
  required: ['error', 'detail'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: 'string' } },
    },
    detail: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'Equals error.code, except a Catalyst role 422: context_window_exceeded (the name Catalyst pins) with hub_code insufficient_context.' },
        message: { type: 'string' },
        hub_code: { type: 'string', description: "The hub's own code where detail.code uses a client's name for it." },
      },
    },
  },
} as const;

export const WIRE_SCHEMAS = { ChatCompletionRequest: CHAT_REQUEST_SCHEMA, Error: ERROR_SCHEMA } as const;

// strictNumbers: JSON.parse turns 1e309 into Infinity, which a plain `typeof` check would accept as a
// temperature or an integer max_tokens; non-finite numbers are refused like any other wrong type.
const ajv = constantSchemaAjv({ allErrors: false, strict: false, strictNumbers: true });
const validateChat = compileConstant<ChatCompletionRequest>(ajv, CHAT_REQUEST_SCHEMA);

/**
 * Deepest nesting of arrays and objects a chat body may have (the body itself is level 1; OpenAI
 * content parts sit at level 5, a caller's JSON schema a few levels further). JSON.parse accepts any
 * depth, but the hub's own recursive work (JSON.stringify of message content, prompts, router bodies,
 * traces) overflows the stack at a few thousand levels: a deeper body must be refused up front, as
 * bad input, rather than fail later as an internal error or a lost turn (decision 11).
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The first top-level field whose value nests deeper than `maxDepth` levels counted from the body,
 * '' when the body itself is too deep without one, null when within bounds. Iterative on purpose: a
 * recursive walk would overflow on exactly the bodies it is meant to refuse.
 */
export function tooDeepField(body: unknown, maxDepth: number = MAX_BODY_DEPTH): string | null {
  if (body === null || typeof body !== 'object') return null;
  const fields: Array<[string, unknown]> = Array.isArray(body) ? body.map((v) => ['', v]) : Object.entries(body);
  for (const [field, value] of fields) {
    const stack: Array<[unknown, number]> = [[value, 2]];
    while (stack.length > 0) {
      const [v, depth] = stack.pop()!;
      if (v === null || typeof v !== 'object') continue;
      if (depth > maxDepth) return field;
      for (const child of Array.isArray(v) ? v : Object.values(v)) {
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      }
    }
  }
  return null;
}

/** 400 for a body nesting deeper than MAX_BODY_DEPTH, naming the top-level field ('' = the body itself). */
export function tooDeepError(field: string): HubError {
  return new HubError('invalid_request_error', `Invalid request: '${field || 'body'}' nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep.`, { param: field || null });
}

/** Validates a parsed chat body; a failure is 400 invalid_request_error naming the field. */
export function parseChatRequest(body: unknown): ChatCompletionRequest {
  const deep = tooDeepField(body);
  if (deep !== null) throw tooDeepError(deep);
  if (validateChat(body)) return body;
  const e = validateChat.errors?.[0];
  const where = e?.instancePath ? e.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
  const missing = e?.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : '';
  const param = missing || where.split('.')[0] || null;
  const field = missing || where || 'body';
  throw new HubError('invalid_request_error', `Invalid request: '${field}' ${missing ? 'is required' : (e?.message ?? 'is invalid')}.`, { param });
}
