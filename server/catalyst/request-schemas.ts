/**
 * JSON Schemas of the Catalyst request bodies, used by ajv (compiled once) and by /openapi.json
 * (decision 14). A role body carries only the caller's conversation and an optional response format:
 * the model, its knobs and the system prompt belong to the profile, so any attempt to send them is 400.
 */
import { compileConstant, constantSchemaAjv } from '../json-schemas';
import { HubError } from '../errors';
import type { ChatMessage } from '../llm';
import { tooDeepError, tooDeepField } from '../wire';

const CALLER_MESSAGE = {
  type: 'object',
  required: ['role', 'content'],
  additionalProperties: false,
  properties: {
    role: { enum: ['user', 'assistant'], description: 'Caller turns only: the system message is the role\'s own prompt.' },
    content: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
    name: { type: 'string' },
  },
} as const;

export const ROLE_REQUEST_SCHEMA = {
  $id: 'CatalystRoleRequest',
  type: 'object',
  required: ['messages'],
  additionalProperties: false,
  properties: {
    messages: { type: 'array', minItems: 1, items: CALLER_MESSAGE, description: 'The caller\'s messages, sent after the role\'s system prompt unchanged.' },
    response_format: { type: ['object', 'null'], description: 'Optional OpenAI response_format (e.g. a json_schema), passed to the model as sent.' },
  },
} as const;

export const RAW_GENERATE_SCHEMA = {
  $id: 'RawGenerateRequest',
  type: 'object',
  required: ['model', 'messages'],
  additionalProperties: true,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 512, description: 'An exact router-advertised model id (GET /v1/models backend.advertised_model_ids).' },
    messages: { type: 'array', minItems: 1, items: { type: 'object', required: ['role'], properties: { role: { type: 'string' } } } },
    stream: { type: 'boolean', default: false },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
    temperature: { type: ['number', 'null'], minimum: 0 },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
    dry_multiplier: { type: ['number', 'null'], minimum: 0 },
    response_format: { type: ['object', 'null'] },
    n: { description: 'Refused above 1: the router reports the usage of one choice only.' },
  },
} as const;

export const CATALYST_WIRE_SCHEMAS = { CatalystRoleRequest: ROLE_REQUEST_SCHEMA, RawGenerateRequest: RAW_GENERATE_SCHEMA } as const;

export interface RoleRequestBody {
  messages: ChatMessage[];
  response_format?: Record<string, unknown> | null;
}

export interface RawGenerateBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  [key: string]: unknown;
}

// strictNumbers: 1e309 parses to Infinity and must be refused like any wrong type.
const ajv = constantSchemaAjv({ allErrors: false, strict: false, strictNumbers: true });
const validateRole = compileConstant<RoleRequestBody>(ajv, ROLE_REQUEST_SCHEMA);
const validateRaw = compileConstant<RawGenerateBody>(ajv, RAW_GENERATE_SCHEMA);

/** Fields a caller might send to steer the role; each gets a message saying who owns it. */
const PROFILE_OWNED = new Set(['model', 'temperature', 'dry_multiplier', 'dry', 'max_tokens', 'maxTokens', 'repeat_penalty', 'top_p', 'top_k', 'seed', 'system', 'knobs']);

function invalid(message: string, param: string | null): HubError {
  return new HubError('invalid_request_error', message, { param });
}

function describe(errors: typeof validateRole.errors): { message: string; param: string | null } {
  const e = errors?.[0];
  if (!e) return { message: 'Invalid request body.', param: null };
  const where = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty?: string }).missingProperty);
    const field = where ? `${where}.${missing}` : missing;
    return { message: `Invalid request: '${field}' is required.`, param: where.split('.')[0] || missing };
  }
  if (e.keyword === 'additionalProperties') {
    const extra = String((e.params as { additionalProperty?: string }).additionalProperty);
    return { message: `Invalid request: unknown field '${where ? `${where}.` : ''}${extra}'.`, param: where.split('.')[0] || extra };
  }
  return { message: `Invalid request: '${where || 'body'}' ${e.message ?? 'is invalid'}.`, param: where.split('.')[0] || null };
}

/**
 * The first top-level field holding a non-finite number anywhere inside (JSON.parse turns 1e309 into
 * Infinity). Free-form parts such as `response_format` escape ajv's strictNumbers, and a non-finite
 * number can be neither digested (RFC 8785) nor sent on faithfully (JSON.stringify writes null).
 * Iterative, after the depth check, so it is bounded.
 */
function nonFiniteField(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  for (const [field, value] of Object.entries(body)) {
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v === 'number' && !Number.isFinite(v)) return field;
      // One push per child: spreading a body-sized array into push() would overflow the call stack.
      if (v !== null && typeof v === 'object') for (const child of Object.values(v)) stack.push(child);
    }
  }
  return null;
}

function checkBounds(body: unknown): void {
  const deep = tooDeepField(body);
  if (deep !== null) throw tooDeepError(deep);
  const bad = nonFiniteField(body);
  if (bad !== null) throw invalid(`Invalid request: '${bad}' holds a number that is not finite.`, bad);
}

export function parseRoleRequest(body: unknown): RoleRequestBody {
  checkBounds(body);
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const owned = Object.keys(body).find((k) => PROFILE_OWNED.has(k));
    if (owned) throw invalid(`Invalid request: '${owned}' cannot be set by the caller; the profile fixes the role's model, system prompt and knobs.`, owned);
    const messages = (body as { messages?: unknown }).messages;
    if (Array.isArray(messages)) {
      const i = messages.findIndex((m) => m && typeof m === 'object' && ((m as { role?: unknown }).role === 'system' || (m as { role?: unknown }).role === 'developer'));
      if (i >= 0) throw invalid(`Invalid request: 'messages.${i}' is a system message; the role's system prompt comes from the profile.`, 'messages');
    }
  }
  if (validateRole(body)) return body;
  const { message, param } = describe(validateRole.errors);
  throw invalid(message, param);
}

export function parseRawGenerateRequest(body: unknown): RawGenerateBody {
  checkBounds(body);
  if (!validateRaw(body)) {
    const { message, param } = describe(validateRaw.errors);
    throw invalid(message, param);
  }
  const n = body.n;
  if (n !== undefined && n !== null && n !== 1) throw invalid("Invalid request: 'n' must be 1 (the router reports the usage of one choice only).", 'n');
  return body;
}
