/**
 * The chat request's JSON Schema: ajv validates every `POST /v1/chat/completions` body against it and
 * /openapi.json publishes it (decision 14), so the document and the validator cannot drift.
 */
import { compileConstant, constantSchemaAjv } from '../json-schemas';
import { HubError } from '../errors';
import type { ChatCompletionRequest } from '../engine';
import { tooDeepError, tooDeepField } from '../wire';

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

// strictNumbers: JSON.parse turns 1e309 into Infinity, which a plain `typeof` check would accept as a
// temperature or an integer max_tokens; non-finite numbers are refused like any other wrong type.
const ajv = constantSchemaAjv({ allErrors: false, strict: false, strictNumbers: true });
const validateChat = compileConstant<ChatCompletionRequest>(ajv, CHAT_REQUEST_SCHEMA);

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
