/**
 * The MCP server of one request: exactly three hand-curated tools (§1.1), each over the same pipeline
 * function its REST route calls. `structuredContent` is that route's JSON (`answer`, `context`) or the
 * documented grouping of it (`search`, see `search.ts`), checked by the SDK against the tool's
 * `outputSchema`; `content` is one text block. Invalid arguments are answered by the SDK as a tool error
 * (`isError`), a pipeline failure by ours: the request never crashes. Log lines carry the client slug,
 * the tool and counts, never the query or patient facts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HubError, isAbortError } from '../../errors';
import type { Logger } from '../../logger';
import { runAnswer } from '../pipeline/answer-v1';
import { runContext } from '../pipeline/context';
import type { AnswerRequest, ContextRequest, PatientContext, PipelineDeps } from '../pipeline/types';
import { answerText, contextText, searchText } from './render';
import { TOOL_SCHEMAS } from './schemas';
import { groupSearch, searchContextRequest, type SearchInput } from './search';

export interface McpToolsDeps {
  pipeline: PipelineDeps;
  logger: Logger;
}

/** Who is calling (for log lines only). */
export interface McpCaller {
  requestId?: string;
  client?: string;
}

export const MCP_SERVER_INFO = { name: 'med-agent-hub-knowledge', version: '0.1.0' };

type ToolResult = { text: string; structured: Record<string, unknown>; counts: Record<string, unknown> };

export function createKnowledgeMcpServer(deps: McpToolsDeps, caller: McpCaller): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {} } });

  const run = async (tool: string, work: () => Promise<ToolResult>): Promise<CallToolResult> => {
    try {
      const r = await work();
      deps.logger.info({ request_id: caller.requestId, client: caller.client, endpoint: 'mcp', tool, ...r.counts }, 'knowledge request');
      return { content: [{ type: 'text', text: r.text }], structuredContent: r.structured };
    } catch (err) {
      if (isAbortError(err)) return { content: [{ type: 'text', text: 'aborted: the client went away' }], isError: true };
      // A HubError's message is written for clients (e.g. unreviewed_not_allowed); anything else is not.
      if (!(err instanceof HubError)) deps.logger.error({ request_id: caller.requestId, endpoint: 'mcp', tool, err: err instanceof Error ? err.name : 'unknown' }, 'knowledge pipeline failed');
      const text = err instanceof HubError ? `${err.code}: ${err.message}` : 'knowledge_unavailable: The knowledge store failed to answer this request.';
      return { content: [{ type: 'text', text }], isError: true };
    }
  };

  server.registerTool(
    'search',
    {
      title: 'Search clinical guidance',
      description:
        'Recall-first search of the Medical Knowledge Units (exact guideline quotes). Returns up to `limit` units (source recommendations), each with up to `max_chunks_per_unit` extracts (MKU verbatims, the only citable text). With `patient_ehr`, safety-critical MKUs reached by the patient\'s facts are added and never dropped (`safety_items`).',
      inputSchema: TOOL_SCHEMAS.search.input,
      outputSchema: TOOL_SCHEMAS.search.output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      run('search', async () => {
        const input = args as SearchInput;
        const ctx = await runContext(deps.pipeline, searchContextRequest(input), undefined, extra.signal);
        const out = groupSearch(input, ctx);
        return { text: searchText(out), structured: out as unknown as Record<string, unknown>, counts: { units: out.units.length, mkus: out.units.reduce((n, u) => n + u.chunks.length, 0), safety_items: out.safety_items.length } };
      }),
  );

  server.registerTool(
    'answer',
    {
      title: 'Grounded answer with citations',
      description: 'The /v1/answer route: an extractive answer quoting the top verbatims, its sources and evidence stacks; the fixed not-found sentence when nothing passes the judge. `source_ids` restricts the sources quoted.',
      inputSchema: TOOL_SCHEMAS.answer.input,
      outputSchema: TOOL_SCHEMAS.answer.output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      run('answer', async () => {
        const out = await runAnswer(deps.pipeline, args as AnswerRequest, undefined, extra.signal);
        return { text: answerText(out), structured: out as unknown as Record<string, unknown>, counts: { sources: out.sources.length, found: out.evidence.length > 0 } };
      }),
  );

  server.registerTool(
    'context',
    {
      title: 'Clinical context for a patient',
      description: 'The /v2/context route: ranked MKUs with provenance, safety_items (never dropped), patient conflicts, cross-refs, non-adjudicated fallback passages and the trace. `patient_ehr` is optional here (absent: no patient facts); `opts` are the route\'s knobs.',
      inputSchema: TOOL_SCHEMAS.context.input,
      outputSchema: TOOL_SCHEMAS.context.output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      run('context', async () => {
        const a = args as Omit<ContextRequest, 'patient_ehr'> & { patient_ehr?: PatientContext };
        const out = await runContext(deps.pipeline, { ...a, patient_ehr: a.patient_ehr ?? {} }, undefined, extra.signal);
        return { text: contextText(out), structured: out as unknown as Record<string, unknown>, counts: { mkus: out.mkus.length, safety_items: out.safety_items.length, judge_score: out.trace.judge_score } };
      }),
  );

  return server;
}
