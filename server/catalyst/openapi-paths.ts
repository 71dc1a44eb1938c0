/** The Catalyst routes in /openapi.json; request bodies reference the schemas ajv validates with (decision 14). */
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

const roleParams = [
  { name: 'profile', in: 'path', required: true, schema: { type: 'string' }, description: 'A catalyst_query profile id (GET /v1/hub/query-profiles).' },
  { name: 'role', in: 'path', required: true, schema: { enum: ['query_generate', 'query_review'] } },
  {
    name: 'X-Request-Timeout-Seconds',
    in: 'header',
    required: false,
    schema: { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
    description: 'Optional deadline in seconds (decimals such as 1800.0 accepted), clamped to CATALYST_MAX_REQUEST_TIMEOUT_SECONDS. Without it the call has no deadline.',
  },
];

const roleBody = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CatalystRoleRequest' } } } };

const roleErrors = {
  '400': errorResponse('invalid_request_error: a system message, an unknown field, or an attempt to set model or knobs'),
  '404': errorResponse('profile_not_found / role_not_found'),
  '499': errorResponse('generation_cancelled (the caller disconnected or the hub is stopping)'),
  '502': errorResponse('model backend failure or empty content (with request_evidence)'),
  '503': errorResponse('router_busy (with Retry-After)'),
  '504': errorResponse('generation_timeout (with request_evidence)'),
};

export function catalystOpenApiPaths(): Record<string, unknown> {
  return {
    '/v1/hub/query-profiles': {
      get: {
        summary: 'Catalyst query profiles: role models, knobs, policies, profileEvidence (RFC 8785 profileDigest), live availability and the backend inventory.',
        responses: { '200': { description: '{object: "list", data: [...], backend: {contract_version: "med-agent-hub.backend-model-inventory.v1", catalog_reachable, advertised_model_ids, notes?, served_by? (LLM_BACKENDS: model id → backend names), backends? (LLM_BACKENDS: [{name, type, url?, reachable}])}}' } },
      },
    },
    '/v1/hub/query-profiles/{profile}/roles/{role}/generate': {
      post: {
        summary: 'Run one role of a query profile on the caller\'s messages (the profile fixes model, system prompt and knobs).',
        parameters: roleParams,
        requestBody: roleBody,
        responses: {
          '200': { description: '{content, model, profile_id, role, token_accounting, request_evidence} (request_evidence contract med-agent-hub.catalyst-role-request-evidence.v1)' },
          '422': errorResponse('a known overflow (prompt + maxTokens > context window), with request_evidence; no model call. detail.code context_window_exceeded (what Catalyst reads), error.code and detail.hub_code insufficient_context'),
          ...roleErrors,
        },
      },
    },
    '/v1/hub/query-profiles/{profile}/roles/{role}/warm': {
      post: {
        summary: 'Prefill the role\'s reusable prompt prefix (everything before ,"question":) into the router\'s prompt cache; returns no content.',
        parameters: roleParams,
        requestBody: roleBody,
        responses: { '204': { description: 'Warmed (no body).' }, ...roleErrors },
      },
    },
    '/v1/hub/generate': {
      post: {
        summary: 'Raw single-model chat completion for an exact router-advertised model id; stream: true forwards the router\'s chunks as they arrive.',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RawGenerateRequest' } } } },
        responses: {
          '200': { description: 'chat.completion with a top-level content (blocking), or the router\'s SSE chunks (stream: true)' },
          '400': errorResponse('invalid_request_error'),
          '404': errorResponse('model_not_found: not advertised by the backend (never forwarded)'),
          '499': errorResponse('generation_cancelled'),
          '502': errorResponse('router_error / router_unreachable'),
          '503': errorResponse('router_busy / model_backend_unreachable'),
          '504': errorResponse('router_timeout'),
        },
      },
    },
  };
}
