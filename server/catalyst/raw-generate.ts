/**
 * `POST /v1/hub/generate` (hub-contract §10.1): a raw single-model call for consumers that own their
 * profile configuration. `model` must be an exact id the backend advertises right now (never forwarded
 * otherwise); the call takes a slot like every model call (decision 5) and is cancelled on disconnect.
 * `stream: true` forwards the router's chunks as they arrive; blocking answers a `chat.completion` that
 * also carries top-level `content`, the shape an earlier Catalyst generation read (`{model, content}`).
 */
import type { Request, Response } from 'express';
import { GenerationCancelledError, HubError, isAbortError } from '../errors';
import { sendError, chatCompletion } from '../wire';
import { reframedChunks, type ChatRequest, type RouterClient } from '../llm';
import { advertisedModels, type AdvertisedModels } from './advertised-models';
import { parseRawGenerateRequest, type RawGenerateBody } from './request-schemas';
import { errorTypeOf, NO_TELEMETRY, type ModelCallSpan, type Telemetry } from '../telemetry';

export interface RawGenerateDeps {
  router: RouterClient;
  discoveryTimeoutMs: number;
  shutdown?: AbortSignal;
  telemetry?: Telemetry;
}

function routerRequest(body: RawGenerateBody): ChatRequest {
  const { stream: _stream, stream_options: _options, n: _n, ...rest } = body;
  return rest as ChatRequest;
}

async function assertAdvertised(models: AdvertisedModels, model: string, signal: AbortSignal): Promise<void> {
  const { advertised, inventory: inv } = await models.check(model, signal);
  if (advertised || !inv) return;
  if (!inv.reachable) throw new HubError('model_backend_unreachable', 'The model backend could not be queried for its model catalogue; retry shortly.', { headers: { 'Retry-After': '2' } });
  throw new HubError('model_not_found', `model '${model}' is not advertised by the model backend`, { param: 'model', extra: { model, advertised_model_ids: [...inv.ids] } });
}

/** SSE headers go out with the first chunk, so a router error before it is still a JSON error. */
async function streamChunks(res: Response, chunks: AsyncIterable<string>): Promise<void> {
  let started = false;
  for await (const data of chunks) {
    if (!started) {
      started = true;
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream');
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('X-Accel-Buffering', 'no');
    }
    // Each payload is one line of JSON (or [DONE]) as the router wrote it: no CR/LF can open a frame.
    res.write(`data: ${data}\n\n`);
  }
  if (!started) throw new HubError('router_error', 'The model router ended the stream without any chunk.');
  res.end();
}

export function rawGenerateHandler(deps: RawGenerateDeps) {
  const models = advertisedModels(deps.router, deps.discoveryTimeoutMs);
  return async (req: Request, res: Response): Promise<void> => {
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort();
    };
    res.on('close', onClose);
    const onShutdown = () => abort.abort();
    deps.shutdown?.addEventListener('abort', onShutdown, { once: true });
    let span: ModelCallSpan | null = null;
    try {
      const body = parseRawGenerateRequest(req.body);
      await assertAdvertised(models, body.model, abort.signal);
      const request = routerRequest(body);
      const opts = { signal: abort.signal, slots: { acquisitions: 0, releases: 0, active: 0 } };
      span = (deps.telemetry ?? NO_TELEMETRY).startCall({ route: 'raw_generate', requestId: String(res.locals.requestId ?? ''), stream: body.stream === true, traceparent: req.headers.traceparent, tracestate: req.headers.tracestate }, request);
      if (body.stream === true) {
        const includeUsage = body.stream_options?.include_usage === true;
        const chunks = deps.router.chatChunks ? deps.router.chatChunks(request, { ...opts, includeUsage }) : reframedChunks(deps.router, request, opts, includeUsage);
        await streamChunks(res, chunks);
        // The router's chunks pass through unread: the span has the request's settings, not the usage.
        span.end();
        return;
      }
      const result = await deps.router.chat(request, opts);
      span.end(result);
      if (abort.signal.aborted) throw new DOMException('cancelled', 'AbortError');
      const completion = chatCompletion(body.model, result.content, result.usage);
      completion.choices[0].finish_reason = result.finishReason ?? 'stop';
      res.status(200).json({ ...completion, content: result.content });
    } catch (err) {
      span?.fail(errorTypeOf(err, abort.signal.aborted));
      if (abort.signal.aborted || isAbortError(err)) {
        if (!res.destroyed && !res.headersSent) sendError(res, new GenerationCancelledError('The generation was cancelled.'));
        else res.end();
        return;
      }
      if (res.headersSent) {
        // Mid-stream failure: the router's own error frame (if any) was forwarded; end without [DONE].
        res.end();
        return;
      }
      sendError(res, err);
    } finally {
      res.off('close', onClose);
      deps.shutdown?.removeEventListener('abort', onShutdown);
    }
  };
}
