/** The knowledge layer's public paths: one list for the routes, the MCP router and the hub's locked door. */
export const KNOWLEDGE_PATHS = { context: '/v2/context', retrieve: '/v2/retrieve', retrieveStream: '/v2/retrieve/stream', answer: '/v1/answer' } as const;

export const KNOWLEDGE_REST_PATHS = Object.values(KNOWLEDGE_PATHS);

export const MCP_PATH = '/mcp';

/** Every path the knowledge layer answers (REST and MCP): the hub enters its router for these only. */
export const KNOWLEDGE_ALL_PATHS: readonly string[] = [...KNOWLEDGE_REST_PATHS, MCP_PATH];
