/**
 * `/mcp`: the knowledge layer's MCP tools (`search`, `answer`, `context`) over Streamable HTTP
 * (knowledge-layer.md §1.1), behind the same `lsk_` keys as the REST routes.
 *
 * Stateless: every POST gets a fresh McpServer and transport (`sessionIdGenerator: undefined`, plain JSON
 * replies), closed when its response ends, so nothing is shared between clients or requests. With no
 * session there is no server-initiated stream to open and no session to end, so GET and DELETE answer
 * 405 (as the Streamable HTTP spec allows) once the key has been checked.
 *
 * Auth and quota: every request is identified (401/403 in the decision-1 shape before the MCP layer sees
 * it); only tool calls cost quota, one unit per `tools/call` message whatever its outcome, taken from the
 * same daily counter as the REST routes (initialize, tools/list and notifications are free). The body is
 * read by the service's JSON body parser (size limit → 413, depth) and handed to the transport parsed.
 */
import express, { type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { HubError } from '../../errors';
import { jsonBody, sendError } from '../../wire';
import type { LskAuth } from '../http/auth';
import { MCP_PATH } from '../http/paths';
import { createKnowledgeMcpServer, type McpToolsDeps } from './tools';

export interface McpRouterDeps extends McpToolsDeps {
  /** The REST routes' auth (shared quota counter). */
  auth: LskAuth;
  maxBodyBytes: number;
}

/** How many JSON-RPC `tools/call` requests a body holds (a batch may hold several). */
export function toolCallCount(body: unknown): number {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.filter((m) => m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call').length;
}

export function mcpRouter(deps: McpRouterDeps): express.Router {
  const router = express.Router();
  const body = jsonBody({ limit: deps.maxBodyBytes });

  const handle = async (req: Request, res: Response): Promise<void> => {
    const calls = toolCallCount(req.body);
    if (calls > 0 && !deps.auth.charge(res, calls)) return;
    const server = createKnowledgeMcpServer(deps, { requestId: res.locals.requestId as string | undefined, client: res.locals.knowledgeClient as string | undefined });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The SDK's own errors (a malformed message, …) are answered by it; the log gets the kind only.
    transport.onerror = (err) => deps.logger.warn({ request_id: res.locals.requestId, endpoint: 'mcp', err: err.name }, 'mcp transport error');
    // Closing also aborts a tool still running (its signal reaches the pipeline) when the client went away.
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  router.post(MCP_PATH, deps.auth.identify, ...body, (req: Request, res: Response) => {
    handle(req, res).catch((err: unknown) => {
      deps.logger.error({ request_id: res.locals.requestId, endpoint: 'mcp', err: err instanceof Error ? err.name : 'unknown' }, 'mcp request failed');
      if (!res.headersSent) sendError(res, new HubError('internal_error', 'The MCP request could not be handled.'));
    });
  });
  const notAllowed = (_req: Request, res: Response) =>
    sendError(res, new HubError('method_not_allowed', 'This MCP endpoint is stateless: POST JSON-RPC messages; there is no session stream (GET) or session to end (DELETE).', { headers: { Allow: 'POST' } }));
  router.get(MCP_PATH, deps.auth.identify, notAllowed);
  router.delete(MCP_PATH, deps.auth.identify, notAllowed);
  return router;
}
