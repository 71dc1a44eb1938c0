/** The OpenAPI 3.1 document, built from the same schemas ajv validates with (decision 14). */
import { WIRE_SCHEMAS } from './schemas';
import { ENVELOPE_SCHEMAS } from '../answer';
import { CATALYST_WIRE_SCHEMAS, catalystOpenApiPaths } from '../catalyst';
import { KNOWLEDGE_SCHEMAS, knowledgeOpenApiPaths, LSK_SECURITY_SCHEME } from '../knowledge';

function stripIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripIds);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$id').map(([k, v]) => [k, stripIds(v)]));
  }
  return schema;
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

export function buildOpenApi(version: string, levelsSchema: unknown) {
  const schemas: Record<string, unknown> = { LevelsYaml: stripIds(levelsSchema) };
  for (const [name, s] of Object.entries({ ...WIRE_SCHEMAS, ...ENVELOPE_SCHEMAS, ...CATALYST_WIRE_SCHEMAS, ...KNOWLEDGE_SCHEMAS })) schemas[name] = stripIds(s);
  return {
    openapi: '3.1.0',
    info: { title: 'Med Agent Hub', version, description: 'OpenAI-compatible clinical answer gateway in front of a llama.cpp router.' },
    paths: {
      '/v1/chat/completions': {
        post: {
          summary: 'Answer a question about a patient with a profile or a low-level leg.',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ChatCompletionRequest' } } } },
          responses: {
            '200': {
              description:
                'chat.completion whose message content is the hub envelope as a JSON string (BlockingProductEnvelope for a product profile, LegEnvelope for a leg or plain profile); or, when stream is true, staged SSE events whose data is a ProductEnvelope (event: error carries ErrorEventData), or a chunk stream for non-staged profiles.',
            },
            '400': errorResponse('invalid_request_error or product_profile_required'),
            '404': errorResponse('model_not_found'),
            '413': errorResponse('Body larger than HUB_MAX_BODY_BYTES'),
            '422': errorResponse('insufficient_context'),
            '501': errorResponse('stage_not_implemented'),
            '502': errorResponse('router_error / router_unreachable'),
            '503': errorResponse('router_busy (with Retry-After), context_source_unavailable (e.g. QueryStore unreachable), context_source_failed (QueryStore failed), tokenization_unavailable'),
            '504': errorResponse('router_timeout'),
          },
        },
      },
      ...catalystOpenApiPaths(),
      '/v1/models': {
        get: {
          summary: 'Profiles with live availability and the backend inventory.',
          responses: { '200': { description: 'Profile list: the catalogue in yaml order (exactly one available product profile has default: true, or none), then each alias with the profile\'s facts, alias_of: <profile id> and default: false; backend: the inventory {contract_version, catalog_reachable, advertised_model_ids, notes?, served_by?, backends?} (served_by and backends with LLM_BACKENDS: which backend serves each model, and each backend\'s reachability)' } },
        },
      },
      '/health': { get: { summary: 'Liveness (always 200).', responses: { '200': { description: 'healthy' } } } },
      '/': { get: { summary: 'Service banner.', responses: { '200': { description: 'running' } } } },
      '/openapi.json': { get: { summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1' } } } },
      '/admin/querystore/cache/purge': {
        post: {
          summary: 'Drop every cached QueryStore patient ledger (the next turn for each patient acquires its chart again).',
          responses: { '200': { description: '{"purged_entries": <n>}' }, '404': errorResponse('QueryStore is not configured') },
        },
      },
      ...knowledgeOpenApiPaths(),
    },
    components: { schemas, securitySchemes: LSK_SECURITY_SCHEME },
  };
}
