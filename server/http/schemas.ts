/**
 * JSON Schemas of the wire, used both by ajv (compiled once) and by /openapi.json (decision 14),
 * so the document and the validator cannot drift.
 */
import Ajv2020 from 'ajv/dist/2020';
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
    detail: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
} as const;

export const WIRE_SCHEMAS = { ChatCompletionRequest: CHAT_REQUEST_SCHEMA, Error: ERROR_SCHEMA } as const;

const ajv = new Ajv2020({ allErrors: false, strict: false });
const validateChat = ajv.compile<ChatCompletionRequest>(CHAT_REQUEST_SCHEMA);

/** Validates a parsed chat body; a failure is 400 invalid_request_error naming the field. */
export function parseChatRequest(body: unknown): ChatCompletionRequest {
  if (validateChat(body)) return body;
  const e = validateChat.errors?.[0];
  const where = e?.instancePath ? e.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
  const missing = e?.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : '';
  const param = missing || where.split('.')[0] || null;
  const field = missing || where || 'body';
  throw new HubError('invalid_request_error', 400, `Invalid request: '${field}' ${missing ? 'is required' : (e?.message ?? 'is invalid')}.`, { param });
}
