/**
 * Catalyst's side of the wire, written from clients.md §5 and independent of the hub's code: JSON Schemas
 * of the discovery document, the role response and request evidence (keys exactly as listed), an
 * RFC 8785 canonical-JSON encoder of its own, and the evidence invariants Catalyst checks.
 */
import { createHash } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';

const nullableReason = { type: 'string', minLength: 1 };
const knobs = {
  type: 'object', additionalProperties: false, required: ['temperature', 'dry', 'maxTokens'],
  properties: { temperature: { type: 'number' }, dry: { type: 'number' }, maxTokens: { type: 'integer', minimum: 1 } },
};
const roleEvidence = {
  type: 'object', additionalProperties: false,
  required: ['role', 'providerId', 'modelClass', 'modelId', 'config', 'systemPrompt'],
  properties: {
    role: { enum: ['writer', 'reviewer'] },
    providerId: { type: 'string', minLength: 1 },
    modelClass: { type: ['string', 'null'] },
    modelId: { type: 'string', minLength: 1 },
    config: knobs,
    systemPrompt: {
      type: 'object', additionalProperties: false, required: ['promptId', 'version', 'promptRef', 'promptDigest', 'text'],
      properties: {
        promptId: { type: 'string', minLength: 1 }, version: { const: '1' }, promptRef: { type: 'string', minLength: 1 },
        promptDigest: { type: 'string', pattern: '^[0-9a-f]{64}$' }, text: { type: 'string', minLength: 1 },
      },
    },
  },
};

export const DISCOVERY_SCHEMA = {
  type: 'object', additionalProperties: false, required: ['object', 'data', 'backend'],
  properties: {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false,
        required: ['id', 'label', 'available', 'required_models', 'role_models', 'role_knobs', 'policies', 'profileEvidence', 'unavailable_reasons'],
        properties: {
          id: { type: 'string', minLength: 1 },
          label: { type: 'string', minLength: 1 },
          available: { type: 'boolean' },
          required_models: { type: 'array', items: { type: 'string' } },
          role_models: { type: 'object', required: ['query_generate'], additionalProperties: false, properties: { query_generate: { type: 'string' }, query_review: { type: 'string' } } },
          role_knobs: { type: 'object', required: ['query_generate'], additionalProperties: false, properties: { query_generate: knobs, query_review: knobs } },
          policies: {
            type: 'object', required: ['generation_attempts', 'collaborative_review', 'model_classes'],
            properties: { generation_attempts: { type: 'integer', minimum: 1, maximum: 3 }, collaborative_review: { type: 'boolean' }, model_classes: { type: 'object' } },
          },
          profileEvidence: {
            type: 'object', additionalProperties: false, required: ['profileId', 'profileName', 'writer', 'reviewer', 'profileDigest'],
            properties: {
              profileId: { type: 'string' }, profileName: { type: 'string' }, writer: roleEvidence,
              reviewer: { anyOf: [roleEvidence, { type: 'null' }] }, profileDigest: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            },
          },
          unavailable_reasons: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    backend: {
      type: 'object', additionalProperties: false, required: ['contract_version', 'catalog_reachable', 'advertised_model_ids'],
      properties: {
        contract_version: { const: 'med-agent-hub.backend-model-inventory.v1' },
        catalog_reachable: { type: 'boolean' },
        advertised_model_ids: { type: 'array', items: { type: 'string' } },
        // The hub's own additions (notes for an operator; with LLM_BACKENDS, issue #32, the backends); Catalyst reads
        // only the three keys above and fails closed on contract_version alone, so added keys break nothing. Listed
        // here so no other key slips in.
        notes: { type: 'array', items: { type: 'string' } },
        served_by: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 } },
        backends: {
          type: 'array',
          items: {
            type: 'object', additionalProperties: false, required: ['name', 'type', 'reachable'],
            properties: { name: { type: 'string' }, type: { enum: ['router', 'embedded'] }, url: { type: 'string' }, reachable: { type: 'boolean' } },
          },
        },
      },
    },
  },
};

const message = { type: 'object', required: ['role', 'content'], properties: { role: { type: 'string' } } };

export const REQUEST_EVIDENCE_SCHEMA = {
  type: 'object', additionalProperties: false, required: ['contractVersion', 'request', 'requestDigest', 'prompt', 'tokens'],
  properties: {
    contractVersion: { const: 'med-agent-hub.catalyst-role-request-evidence.v1' },
    request: {
      type: 'object', additionalProperties: false, required: ['profileId', 'role', 'model', 'messages', 'responseFormat', 'config'],
      properties: {
        profileId: { type: 'string' }, role: { enum: ['query_generate', 'query_review'] }, model: { type: 'string' },
        messages: { type: 'array', minItems: 2, items: message, prefixItems: [{ type: 'object', properties: { role: { const: 'system' }, content: { type: 'string', minLength: 1 } } }] },
        responseFormat: { type: ['object', 'null'] },
        config: {
          type: 'object', additionalProperties: false, required: ['temperature', 'dryMultiplier', 'maxTokens'],
          properties: { temperature: { type: 'number' }, dryMultiplier: { type: 'number' }, maxTokens: { type: 'integer' } },
        },
      },
    },
    requestDigest: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    prompt: {
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['renderedPrompt', 'renderedPromptDigest'], properties: { renderedPrompt: { type: 'string' }, renderedPromptDigest: { type: 'string', pattern: '^[0-9a-f]{64}$' } } },
        { type: 'object', additionalProperties: false, required: ['renderedPrompt', 'renderedPromptDigest', 'unavailableReason'], properties: { renderedPrompt: { type: 'null' }, renderedPromptDigest: { type: 'null' }, unavailableReason: nullableReason } },
      ],
    },
    tokens: {
      type: 'object', additionalProperties: false, required: ['tokenizer', 'contextWindow', 'outputReserve', 'promptTokens', 'requiredTokens', 'fits'],
      properties: {
        tokenizer: { type: 'string' }, contextWindow: { type: ['integer', 'null'] }, outputReserve: { type: 'integer' }, promptTokens: { type: ['integer', 'null'] },
        requiredTokens: { type: ['integer', 'null'] }, fits: { type: ['boolean', 'null'] },
        contextWindowUnavailableReason: nullableReason, promptTokensUnavailableReason: nullableReason,
      },
    },
  },
};

export const ROLE_RESPONSE_SCHEMA = {
  type: 'object', additionalProperties: false, required: ['content', 'model', 'profile_id', 'role', 'token_accounting', 'request_evidence'],
  properties: {
    content: { type: 'string', minLength: 1 }, model: { type: 'string' }, profile_id: { type: 'string' }, role: { type: 'string' },
    token_accounting: {
      anyOf: [{ type: 'null' }, {
        type: 'object', additionalProperties: false, required: ['tokenizer', 'contextWindow', 'outputReserve', 'promptTokens'],
        properties: { tokenizer: { type: 'string' }, contextWindow: { type: 'integer' }, outputReserve: { type: 'integer' }, promptTokens: { type: 'integer' } },
      }],
    },
    request_evidence: REQUEST_EVIDENCE_SCHEMA,
  },
};

export const ROLE_ERROR_SCHEMA = {
  type: 'object', required: ['error', 'detail'],
  properties: {
    error: { type: 'object', required: ['message', 'type', 'param', 'code'] },
    detail: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, request_evidence: REQUEST_EVIDENCE_SCHEMA } },
  },
};

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validators = { discovery: ajv.compile(DISCOVERY_SCHEMA), response: ajv.compile(ROLE_RESPONSE_SCHEMA), error: ajv.compile(ROLE_ERROR_SCHEMA), evidence: ajv.compile(REQUEST_EVIDENCE_SCHEMA) };

/** Throws with ajv's errors when `value` does not match the named schema. */
export function assertShape(kind: keyof typeof validators, value: unknown): void {
  const validate = validators[kind];
  if (!validate(value)) throw new Error(`${kind} does not match clients.md §5: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
}

/**
 * RFC 8785 written here from the RFC, not taken from the hub: object keys sorted by UTF-16 code units,
 * no whitespace, strings and numbers serialised as ECMAScript JSON.stringify does (§3.2.2).
 */
export function jcs(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('JCS: non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
  // Default sort compares UTF-16 code units, exactly what RFC 8785 §3.2.3 asks.
  keys.sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** Catalyst's strict checks of request evidence beyond its shape (clients.md §5). */
export function checkEvidence(e: any, expect: { profileId: string; role: string; model: string; callerMessages: unknown[]; responseFormat: unknown; knobs: { temperature: number; dry: number; maxTokens: number } }): string[] {
  const problems: string[] = [];
  const r = e.request;
  if (r.profileId !== expect.profileId) problems.push('profileId');
  if (r.role !== expect.role) problems.push('role');
  if (r.model !== expect.model) problems.push('model');
  if (r.messages[0].role !== 'system') problems.push('first message is not system');
  if (JSON.stringify(r.messages.slice(1)) !== JSON.stringify(expect.callerMessages)) problems.push('caller messages changed');
  if (JSON.stringify(r.responseFormat) !== JSON.stringify(expect.responseFormat ?? null)) problems.push('responseFormat');
  if (r.config.temperature !== expect.knobs.temperature || r.config.dryMultiplier !== expect.knobs.dry || r.config.maxTokens !== expect.knobs.maxTokens) problems.push('config vs role_knobs');
  if (e.requestDigest !== sha256(jcs(r))) problems.push('requestDigest');
  if (e.prompt.renderedPrompt !== null && e.prompt.renderedPromptDigest !== sha256(e.prompt.renderedPrompt)) problems.push('renderedPromptDigest');
  const t = e.tokens;
  if (t.tokenizer !== expect.model) problems.push('tokenizer');
  if (t.outputReserve !== expect.knobs.maxTokens) problems.push('outputReserve');
  if (t.contextWindow === null && !t.contextWindowUnavailableReason) problems.push('contextWindow reason');
  if (t.promptTokens === null && !t.promptTokensUnavailableReason) problems.push('promptTokens reason');
  const required = t.promptTokens === null ? null : t.promptTokens + t.outputReserve;
  if (t.requiredTokens !== required) problems.push('requiredTokens');
  const fits = required === null || t.contextWindow === null ? null : required <= t.contextWindow;
  if (t.fits !== fits) problems.push('fits');
  return problems;
}

/** profileDigest recomputed: the evidence without profileDigest and without both prompt texts. */
export function expectedProfileDigest(evidence: any): string {
  const strip = (r: any) => (r === null ? null : { ...r, systemPrompt: Object.fromEntries(Object.entries(r.systemPrompt).filter(([k]) => k !== 'text')) });
  const { profileDigest: _d, ...rest } = evidence;
  return sha256(jcs({ ...rest, writer: strip(rest.writer), reviewer: strip(rest.reviewer) }));
}

/**
 * How Catalyst records a failed role call (clients.md §5 outcomes, issue #33): a 422 whose `detail.code` is
 * `context_window_exceeded` was rejected before dispatch (nothing ran, the prompt must shrink); the other
 * statuses it names map to their outcomes; anything else is a transport failure.
 */
export function catalystFailureOutcome(status: number, body: any): string {
  const code = body?.detail?.code;
  if (status === 422 && code === 'context_window_exceeded') return 'rejected_before_dispatch';
  if (status === 504 && code === 'generation_timeout') return 'timed_out';
  if (status === 499 && code === 'generation_cancelled') return 'cancelled';
  return 'transport_failed';
}
