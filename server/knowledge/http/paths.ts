/** The knowledge layer's public paths: one list for the routes, the MCP router and the hub's locked door. */
export const KNOWLEDGE_REST_PATHS = ['/v2/context', '/v2/retrieve', '/v2/retrieve/stream', '/v1/answer'] as const;

export const MCP_PATH = '/mcp';
