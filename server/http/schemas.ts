/**
 * JSON Schemas of the wire, used both by ajv (compiled once) and by /openapi.json (decision 14),
 * so the document and the validator cannot drift.
 */
import { CHAT_REQUEST_SCHEMA } from '../chat';

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
