/** The knowledge routes in the hub's OpenAPI document (decision 14): the same schemas ajv validates with. */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const err = (description: string) => ({ description, content: json('Error') });

const AUTH_ERRORS = {
  '401': err('AUTH_MISSING, AUTH_INVALID_FORMAT (not lsk_<slug>_<32 hex>), AUTH_INVALID_KEY (unknown or revoked)'),
  '403': err('AUTH_CLIENT_INACTIVE'),
  '422': { description: 'Schema-invalid body: Locus detail list [{loc, msg, type}] plus the error object (decision 18)', content: json('KnowledgeValidationError') },
  '429': err('RATE_LIMIT: the client\'s daily quota is spent (resets 00:00 UTC; Retry-After)'),
  '503': err('knowledge_unavailable: the store failed'),
};

const security = [{ lsk: [] }];

export function knowledgeOpenApiPaths() {
  return {
    '/v2/context': {
      post: {
        summary: 'Recall-first MKU retrieval (MKF 0.1.2): concepts → R1 ∪ R2 → safety sweep → judge → fallback → provenance → cross-refs. Served when the knowledge layer is enabled.',
        security,
        requestBody: { required: true, content: json('MkuContextRequest') },
        responses: { '200': { description: 'Ranked MKUs, safety_items (never dropped), conflicts, cross_refs (no LINEAGE), fallback chunks (non_adjudiqué), trace', content: json('MkuContextResponse') }, '403': err('AUTH_CLIENT_INACTIVE, or unreviewed_not_allowed (opts.include_unreviewed outside CTX_ALLOW_UNREVIEWED / ENV=test)'), ...withoutKey(AUTH_ERRORS, '403') },
      },
    },
    '/v2/retrieve': {
      post: {
        summary: 'GraphRAG retrieving (MKF 0.1.3): hybrid concept+vector MKUs, chunks, cross-refs, extractive Markdown answer. No judge and no safety sweep on this endpoint: use /v2/context for safety items.',
        security,
        parameters: [{ name: 'Accept', in: 'header', schema: { type: 'string', enum: ['application/json', 'text/markdown', 'text/html'], default: 'application/json' } }],
        requestBody: { required: true, content: json('RetrieveRequest') },
        responses: {
          '200': { description: 'JSON payload; text/markdown = answer + provenance; text/html = the same Markdown rendered with every value escaped', content: { ...json('RetrieveResponse'), 'text/markdown': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } } } },
          '406': err('not_acceptable: Accept allows none of the three types'),
          ...AUTH_ERRORS,
        },
      },
    },
    '/v2/retrieve/stream': {
      post: {
        summary: 'The /v2/retrieve pipeline as NDJSON: one line per stage ({stage, t_ms, data}), then {stage:"done", data:<RetrieveResponse>} or {stage:"error", error:{code,message}}.',
        security,
        requestBody: { required: true, content: json('RetrieveRequest') },
        responses: { '200': { description: 'application/x-ndjson, each line one RetrieveStreamLine', content: { 'application/x-ndjson': { schema: ref('RetrieveStreamLine') } } }, ...AUTH_ERRORS },
      },
    },
    '/v1/answer': {
      post: {
        summary: 'Grounded answer with citations: extractive (quotes the top verbatims) without a model; the fixed not-found sentence when nothing passes the judge.',
        security,
        requestBody: { required: true, content: json('AnswerRequest') },
        responses: { '200': { description: 'Answer, sources de-duplicated by reco_id, steps, evidence stacks', content: json('AnswerResponse') }, ...AUTH_ERRORS },
      },
    },
    // MCP is JSON-RPC, not REST: one description entry; the tools' schemas are served by `tools/list`.
    '/mcp': {
      post: {
        summary: 'MCP over Streamable HTTP (stateless, JSON replies): tools search, answer and context over the same pipeline; each returns text content plus structuredContent. One quota unit per tools/call message; GET and DELETE answer 405.',
        security,
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 MCP message (initialize, tools/list, tools/call, …)' } } } },
        responses: { '200': { description: 'The JSON-RPC response', content: { 'application/json': { schema: { type: 'object' } } } }, '202': { description: 'A notification, accepted' }, '413': err('request_too_large: the body is over HUB_MAX_BODY_BYTES'), '401': AUTH_ERRORS['401'], '403': AUTH_ERRORS['403'], '429': AUTH_ERRORS['429'] },
      },
    },
  };
}

function withoutKey<T extends Record<string, unknown>>(o: T, key: string): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => k !== key)) as Partial<T>;
}

/** The `lsk` bearer scheme (Locus: `Authorization: Bearer lsk_<slug>_<32 hex>`). */
export const LSK_SECURITY_SCHEME = { lsk: { type: 'http', scheme: 'bearer', description: 'Knowledge-layer client key lsk_<slug>_<32 hex> (not HUB_API_KEYS).' } };
