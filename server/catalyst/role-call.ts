/**
 * `POST /v1/hub/query-profiles/{profile}/roles/{role}/generate` and `…/warm` (hub-contract §10.1,
 * clients.md §5). The profile fixes model, system prompt and knobs; the caller brings its messages.
 * Generate measures the prompt exactly, refuses only a known overflow (422, no model call), then runs the
 * role through the slot semaphore and answers with the content and complete request evidence. Warm
 * runs the writer's reusable prefix with `max_tokens: 1` so the router's prompt cache holds it (204).
 */
import type { Request, Response } from 'express';
import { GenerationCancelledError, GenerationTimeoutError, HubError, isAbortError } from '../errors';
import { sendError } from '../wire';
import type { LocalTokenizer, CallOptions, ChatMessage, ChatRequest, ChatResult, RouterClient, SlotEvidence } from '../llm';
import type { Catalog } from '../profiles';
import type { TraceSink } from '../trace';
import { errorTypeOf, NO_TELEMETRY, type Telemetry } from '../telemetry';
import { controlCall, type CallControl } from './call-control';
import { inventoryWithin } from './discovery';
import { asRoleError, emptyContent, generationCancelled, generationTimeout, knownOverflowError, withRequestEvidence } from './errors';
import { buildEvidenceRequest, buildRequestEvidence, knownOverflow, roleMessages, tokenAccounting } from './evidence';
import { measurePrompt } from './measure';
import { lookupRole, resolveRole } from './query-profiles';
import { parseRoleRequest } from './request-schemas';
import type { RequestEvidence, ResolvedRole } from './types';
import { warmPrefixMessages } from './warm-prefix';

export interface RoleCallDeps {
  catalog: Catalog;
  router: RouterClient;
  localTokenizer: LocalTokenizer | null;
  trace: TraceSink;
  discoveryTimeoutMs: number;
  maxTimeoutSeconds: number;
  shutdown?: AbortSignal;
  /** Running hub work: a role call counts like a turn, so a graceful shutdown drains it too. */
  turns: { active: number; started: number };
  telemetry?: Telemetry;
}

type Kind = 'generate' | 'warm';

/** What the trace keeps of one role call: ids, digests, figures and slot evidence — never prompt or message text. */
interface CallRecord {
  kind: Kind;
  requestId: string;
  profileId: string;
  role: string;
  model: string | null;
  evidence: RequestEvidence | null;
  slots: SlotEvidence;
  started: number;
}

function routerRequest(role: ResolvedRole, messages: ChatMessage[], responseFormat: Record<string, unknown> | null, maxTokens: number): ChatRequest {
  return {
    model: role.model,
    messages,
    temperature: role.config.temperature,
    dry_multiplier: role.config.dryMultiplier,
    max_tokens: maxTokens,
    ...(responseFormat ? { response_format: responseFormat } : {}),
  };
}

/**
 * The completion, streamed from the router and gathered here: a long generation is then bounded only by
 * the router's silence between tokens (ROUTER_IDLE_TIMEOUT_SECONDS), never by a wait for one whole body.
 * The call is one `chat {model}` span, the root of its trace unless the caller sent a traceparent.
 */
async function complete(deps: RoleCallDeps, call: { rec: CallRecord; req: Request }, request: ChatRequest, opts: CallOptions): Promise<ChatResult> {
  const { rec, req } = call;
  const span = (deps.telemetry ?? NO_TELEMETRY).startCall({ route: 'catalyst_role', requestId: rec.requestId, stream: false, profileId: rec.profileId, role: rec.role, traceparent: req.headers.traceparent, tracestate: req.headers.tracestate }, request);
  try {
    for await (const piece of deps.router.chatStream(request, opts)) {
      if (piece.kind === 'done') {
        span.end(piece.result);
        return piece.result;
      }
    }
    throw new HubError('router_error', 'The model router ended the stream without a completion.');
  } catch (err) {
    span.fail(errorTypeOf(err, opts.signal?.aborted));
    throw err;
  }
}

/** An interruption names its cause; a backend failure keeps its own code (mapped for Catalyst). */
function endError(err: unknown, control: CallControl): unknown {
  const cause = control.cause();
  if (cause === 'timeout') return generationTimeout(control.deadlineSeconds ?? 0);
  if (cause === 'cancelled' || isAbortError(err)) return generationCancelled();
  return err instanceof HubError ? asRoleError(err) : err;
}

function traceCall(trace: TraceSink, rec: CallRecord, outcome: string, status: number): void {
  const { slots } = rec;
  trace.append({
    ts: new Date().toISOString(),
    event: `catalyst_role_${rec.kind}`,
    request_id: rec.requestId,
    profile_id: rec.profileId,
    role: rec.role,
    model: rec.model,
    outcome,
    status,
    duration_ms: Math.round(performance.now() - rec.started),
    request_digest: rec.evidence?.requestDigest ?? null,
    prompt_tokens: rec.evidence?.tokens.promptTokens ?? null,
    fits: rec.evidence?.tokens.fits ?? null,
    router_slot_evidence: { ...slots },
    // Proof that this request freed exactly the slots it took, and only those (§10.1).
    router_lock_released: slots.active === 0 && slots.acquisitions === slots.releases,
  });
}

function outcomeOf(status: number, failure: unknown): string {
  if (status < 300) return 'succeeded';
  if (failure instanceof GenerationCancelledError) return 'cancelled';
  if (failure instanceof GenerationTimeoutError) return 'timed_out';
  return 'failed';
}

async function generate(deps: RoleCallDeps, role: ResolvedRole, req: Request, res: Response, control: CallControl, rec: CallRecord): Promise<void> {
  const body = parseRoleRequest(req.body);
  const responseFormat = body.response_format ?? null;
  const request = buildEvidenceRequest(role, body.messages, responseFormat);
  const inv = await inventoryWithin(deps.router, deps.discoveryTimeoutMs, control.signal);
  const measured = await measurePrompt(deps, { model: role.model, messages: request.messages }, inv, control.signal);
  const evidence = buildRequestEvidence(request, measured);
  rec.evidence = evidence;
  try {
    if (knownOverflow(evidence.tokens)) throw knownOverflowError(evidence.tokens.requiredTokens as number, evidence.tokens.contextWindow as number);
    const result = await complete(deps, { rec, req }, routerRequest(role, request.messages, responseFormat, role.config.maxTokens), { signal: control.signal, slots: rec.slots });
    // A completion that lands after the caller left is never delivered (a transport interruption cannot yield a response).
    if (control.cause()) throw generationCancelled();
    if (result.content.trim() === '') throw emptyContent(role.model);
    res.status(200).json({
      content: result.content,
      model: role.model,
      profile_id: role.profileId,
      role: role.role,
      token_accounting: tokenAccounting(evidence.tokens),
      request_evidence: evidence,
    });
  } catch (err) {
    const mapped = endError(err, control);
    throw mapped instanceof HubError ? withRequestEvidence(mapped, evidence) : mapped;
  }
}

async function warm(deps: RoleCallDeps, role: ResolvedRole, req: Request, res: Response, control: CallControl, rec: CallRecord): Promise<void> {
  const body = parseRoleRequest(req.body);
  const messages = warmPrefixMessages(roleMessages(role, body.messages));
  // One generated token: the work is the prefill, which the router keeps in its prompt cache.
  await complete(deps, { rec, req }, routerRequest(role, messages, null, 1), { signal: control.signal, slots: rec.slots });
  if (control.cause()) throw generationCancelled();
  res.status(204).end();
}

export function roleHandler(deps: RoleCallDeps, kind: Kind) {
  return async (req: Request, res: Response): Promise<void> => {
    const profileId = String(req.params.profile);
    const roleName = String(req.params.role);
    const rec: CallRecord = { kind, requestId: String(res.locals.requestId ?? ''), profileId, role: roleName, model: null, evidence: null, slots: { acquisitions: 0, releases: 0, active: 0 }, started: performance.now() };
    let control: CallControl | null = null;
    let status = 200;
    let failure: unknown = null;
    deps.turns.active++;
    deps.turns.started++;
    try {
      const found = lookupRole(deps.catalog, profileId, roleName);
      res.locals.profile = found.profile.id;
      control = controlCall(req, res, { maxTimeoutSeconds: deps.maxTimeoutSeconds, shutdown: deps.shutdown });
      const role = resolveRole(deps.catalog, found.profile, found.role);
      rec.model = role.model;
      const run = kind === 'generate' ? generate : warm;
      try {
        await run(deps, role, req, res, control, rec);
        status = res.statusCode;
      } catch (err) {
        throw kind === 'warm' ? endError(err, control) : err;
      }
    } catch (err) {
      const mapped = control && !(err instanceof HubError) ? endError(err, control) : err;
      status = mapped instanceof HubError ? mapped.status : 500;
      failure = mapped;
      // A client that left gets nothing more; a response that can still be written gets the error.
      if (res.destroyed || res.writableEnded) res.end();
      else sendError(res, mapped);
    } finally {
      deps.turns.active--;
      control?.dispose();
      if (rec.model !== null) traceCall(deps.trace, rec, outcomeOf(status, failure), status);
    }
  };
}
