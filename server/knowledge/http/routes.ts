/**
 * The four Locus-compatible routes (§1, §6.3) behind their own `lsk_` auth: `POST /v2/context`,
 * `/v2/retrieve` (JSON, `text/markdown` or `text/html` by `Accept`), `/v2/retrieve/stream` (NDJSON, one
 * flushed line per stage, terminal `done` or `error`) and `/v1/answer`. A client that goes away aborts the
 * pipeline between stages. Log lines carry counts and the client slug, never the query or patient facts.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import { HubError, isAbortError } from '../../errors';
import { sendError, jsonBody } from '../../wire';
import type { Logger } from '../../logger';
import { runAnswer } from '../pipeline/answer-v1';
import { runContext } from '../pipeline/context';
import { runRetrieve } from '../pipeline/retrieve';
import { mcpRouter } from '../mcp';
import type { AnswerRequest, ContextRequest, EmitStage, PipelineDeps, RetrieveRequest, StageEvent } from '../pipeline/types';
import { lskAuth, type KnowledgeClient } from './auth';
import { markdownToHtml, retrieveMarkdown } from './render';
import { KNOWLEDGE_PATHS } from './paths';
import { compileKnowledgeSchema, KnowledgeValidationError, sendValidationError, validateRequest } from './validate';

export interface KnowledgeRoutesDeps {
  pipeline: PipelineDeps;
  clients: readonly KnowledgeClient[];
  /** KNOWLEDGE_AUTH=off: no key asked, no quota taken. */
  open?: boolean;
  /** The quota's clock (tests move it across midnight). */
  clock?: () => Date;
  logger: Logger;
  maxBodyBytes: number;
}

const validateContext = compileKnowledgeSchema<ContextRequest>('MkuContextRequest');
const validateRetrieve = compileKnowledgeSchema<RetrieveRequest>('RetrieveRequest');
const validateAnswer = compileKnowledgeSchema<AnswerRequest>('AnswerRequest');

/** Aborted when the client closes the connection before the response is finished. */
function clientSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

function failure(err: unknown): HubError | KnowledgeValidationError {
  if (err instanceof HubError || err instanceof KnowledgeValidationError) return err;
  return new HubError('knowledge_unavailable', 'The knowledge store failed to answer this request.');
}

export function knowledgeRouter(deps: KnowledgeRoutesDeps): express.Router {
  const router = express.Router();
  const auth = lskAuth({ clients: deps.clients, clock: deps.clock, open: deps.open });
  const body = jsonBody({ limit: deps.maxBodyBytes });
  const now = deps.pipeline.now ?? (() => performance.now());
  const log = (res: Response, endpoint: string, fields: Record<string, unknown>) =>
    deps.logger.info({ request_id: res.locals.requestId, client: res.locals.knowledgeClient, endpoint, ...fields }, 'knowledge request');

  const fail = (res: Response, err: unknown) => {
    if (isAbortError(err) || res.destroyed) return;
    const f = failure(err);
    if (!(err instanceof HubError) && !(err instanceof KnowledgeValidationError)) deps.logger.error({ request_id: res.locals.requestId, err: err instanceof Error ? err.name : 'unknown' }, 'knowledge pipeline failed');
    if (f instanceof KnowledgeValidationError) sendValidationError(res, f);
    else sendError(res, f);
  };

  const route = (path: string, handler: (req: Request, res: Response) => Promise<void>) => {
    const run: RequestHandler = (req, res) => void handler(req, res).catch((err: unknown) => fail(res, err));
    router.post(path, auth, ...body, run);
  };

  route(KNOWLEDGE_PATHS.context, async (req, res) => {
    const input = validateRequest(validateContext, req.body);
    const out = await runContext(deps.pipeline, input, undefined, clientSignal(res));
    log(res, 'context', { mkus: out.mkus.length, safety_items: out.safety_items.length, judge_score: out.trace.judge_score, mode: out.trace.mode });
    res.json(out);
  });

  route(KNOWLEDGE_PATHS.retrieve, async (req, res) => {
    // Negotiated before any work: an unacceptable Accept costs nothing.
    const type = req.accepts(['application/json', 'text/markdown', 'text/html']);
    if (!type) throw new HubError('not_acceptable', 'Accept must allow application/json, text/markdown or text/html.');
    const input = validateRequest(validateRetrieve, req.body);
    const out = await runRetrieve(deps.pipeline, input, undefined, clientSignal(res));
    log(res, 'retrieve', { mkus: out.mkus.length, format: type });
    if (type === 'application/json') return void res.json(out);
    const md = retrieveMarkdown(out);
    res.type(type === 'text/html' ? 'text/html; charset=utf-8' : 'text/markdown; charset=utf-8');
    res.send(type === 'text/html' ? markdownToHtml(md, out.query) : md);
  });

  route(KNOWLEDGE_PATHS.retrieveStream, async (req, res) => {
    const input = validateRequest(validateRetrieve, req.body);
    const signal = clientSignal(res);
    const started = now();
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    // JSON.stringify escapes every CR/LF inside strings, so each object is exactly one line.
    const line = (obj: unknown) => {
      if (!res.destroyed) res.write(`${JSON.stringify(obj)}\n`);
    };
    const emit: EmitStage = (stage, data) => line({ stage, t_ms: Math.round((now() - started) * 1000) / 1000, data } satisfies StageEvent);
    try {
      const out = await runRetrieve(deps.pipeline, input, emit, signal);
      line({ stage: 'done', data: out });
      log(res, 'retrieve_stream', { mkus: out.mkus.length });
    } catch (err) {
      if (isAbortError(err) || signal.aborted) return void log(res, 'retrieve_stream', { aborted: true });
      const f = failure(err);
      if (!(err instanceof HubError)) deps.logger.error({ request_id: res.locals.requestId, err: err instanceof Error ? err.name : 'unknown' }, 'knowledge pipeline failed');
      line({ stage: 'error', error: { code: f instanceof HubError ? f.code : 'invalid_request_error', message: f.message } });
    }
    res.end();
  });

  route(KNOWLEDGE_PATHS.answer, async (req, res) => {
    const input = validateRequest(validateAnswer, req.body);
    const out = await runAnswer(deps.pipeline, input, undefined, clientSignal(res));
    log(res, 'answer', { sources: out.sources.length, found: out.evidence.length > 0 });
    res.json(out);
  });

  // MCP tools at /mcp: same keys, one shared quota counter (one unit per tool call).
  router.use(mcpRouter({ pipeline: deps.pipeline, logger: deps.logger, maxBodyBytes: deps.maxBodyBytes, auth }));

  return router;
}
