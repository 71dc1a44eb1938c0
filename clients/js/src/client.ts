/**
 * `MedAgentHub`: the hub's routes as typed methods (openai-node is the model). Chat answers come back
 * parsed into the hub's envelopes; staged streams are async iterables (stream.ts); errors are classes
 * per status (errors.ts); Catalyst evidence digests are verified before a result is returned.
 */
import {
  verifyErrorEvidence, verifyProfileEvidence, verifyRequestEvidence,
  type CatalystRole, type QueryProfilesDocument, type RoleRequest, type RoleResult,
} from './catalyst.js';
import type { BlockingProductEnvelope, LegEnvelope } from './envelope.js';
import { ProtocolError } from './errors.js';
import { Transport } from './http.js';
import {
  ndjsonStages, type AnswerRequest, type AnswerResponse, type ContextRequest, type ContextResponse,
  type RetrieveRequest, type RetrieveResponse, type RetrieveStreamEvent,
} from './knowledge.js';
import { StagedStream } from './stream.js';
import type {
  AskResult, ChatCompletion, ChatRequest, GenerateCompletion, GenerateRequest, LegAnswer, ModelList, ProductAnswer, RequestOptions,
} from './types.js';

export interface ClientOptions {
  /** The hub's root, e.g. `http://localhost:8080` (no `/v1`). */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` when the hub has `HUB_API_KEYS`. */
  apiKey?: string;
  /** The knowledge layer's `lsk_…` key (its routes have their own keys); default: `apiKey`. */
  knowledgeApiKey?: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Longest wait for response headers; the body has no deadline (default 30 000 ms, the deployed module's bound). */
  timeoutMs?: number;
  /** Extra headers on every request (e.g. `x-request-id`). */
  headers?: Record<string, string>;
}

export interface RoleCallOptions extends RequestOptions {
  /** `X-Request-Timeout-Seconds`: a deadline for the role call (none by default). */
  timeoutSeconds?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `choices[0].message.content` parsed; a product envelope is told from a leg's by its drug-safety object. */
function answerOf(completion: ChatCompletion): AskResult {
  const content = completion?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new ProtocolError('The completion has no string choices[0].message.content');
  let envelope: unknown;
  try {
    envelope = JSON.parse(content);
  } catch {
    throw new ProtocolError('choices[0].message.content is not JSON');
  }
  if (!isObject(envelope) || typeof envelope.answer !== 'string') throw new ProtocolError('choices[0].message.content is not an envelope with a string answer');
  if ('status' in envelope) throw new ProtocolError('The envelope has a top-level status: the retired flattened In-Depth shape');
  if ('safetyCheck' in envelope) return { type: 'product', envelope: envelope as unknown as BlockingProductEnvelope, completion };
  return { type: 'leg', envelope: envelope as unknown as LegEnvelope, completion };
}

export class MedAgentHub {
  private readonly transport: Transport;
  private readonly knowledgeApiKey?: string;

  constructor(options: ClientOptions) {
    if (!options?.baseURL) throw new TypeError('MedAgentHub: baseURL is required');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    this.transport = new Transport({
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      fetch: fetchImpl.bind(globalThis),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      headers: options.headers ?? {},
    });
    this.knowledgeApiKey = options.knowledgeApiKey;
  }

  /** `GET /v1/models`: the profiles, their availability and the default. */
  models(opts: RequestOptions = {}): Promise<ModelList> {
    return this.transport.json<ModelList>('/v1/models', opts);
  }

  /** A blocking answer: the product envelope for product profiles, the result envelope for legs and plain profiles. */
  async ask(body: ChatRequest, opts: RequestOptions = {}): Promise<AskResult> {
    const completion = await this.transport.json<ChatCompletion>('/v1/chat/completions', { ...opts, body: { ...body, stream: false } });
    return answerOf(completion);
  }

  /** `ask` for a product profile; a leg's answer is refused. */
  async askProduct(body: ChatRequest, opts: RequestOptions = {}): Promise<ProductAnswer> {
    const result = await this.ask(body, opts);
    if (result.type !== 'product') throw new ProtocolError(`${body.model} answered with a leg envelope, not a product envelope`);
    return result;
  }

  /** `ask` for a low-level leg (`answer:<model>@<prompt>~<gate>…`) or a plain profile. */
  async askLeg(body: ChatRequest, opts: RequestOptions = {}): Promise<LegAnswer> {
    const result = await this.ask(body, opts);
    if (result.type !== 'leg') throw new ProtocolError(`${body.model} answered with a product envelope, not a leg envelope`);
    return result;
  }

  /**
   * A staged answer of a product profile. Resolves once the hub sent its headers (HTTP errors throw here);
   * iterate the result with `for await`. `break` or `opts.signal` closes the connection and cancels the turn.
   */
  async stream(body: ChatRequest, opts: RequestOptions = {}): Promise<StagedStream> {
    const { response, controller } = await this.transport.open('/v1/chat/completions', {
      ...opts,
      body: { ...body, stream: true },
      headers: { accept: 'text/event-stream', ...opts.headers },
    });
    return new StagedStream(response, controller);
  }

  /** `POST /v1/hub/generate`: a raw completion from a model the backend advertises. */
  generate(body: GenerateRequest, opts: RequestOptions = {}): Promise<GenerateCompletion> {
    return this.transport.json<GenerateCompletion>('/v1/hub/generate', { ...opts, body: { ...body, stream: false } });
  }

  /** `GET /v1/hub/query-profiles`, with each profile's prompt and profile digests verified. */
  async queryProfiles(opts: RequestOptions = {}): Promise<QueryProfilesDocument> {
    const doc = await this.transport.json<QueryProfilesDocument>('/v1/hub/query-profiles', opts);
    for (const profile of doc.data) await verifyProfileEvidence(profile);
    return doc;
  }

  /** Runs one Catalyst role; its `request_evidence` digests are verified (EvidenceDigestError on a mismatch). */
  async generateRole(profileId: string, role: CatalystRole, body: RoleRequest, opts: RoleCallOptions = {}): Promise<RoleResult> {
    let result: RoleResult;
    try {
      result = await this.transport.json<RoleResult>(this.rolePath(profileId, role, 'generate'), this.roleOptions(body, opts));
    } catch (err) {
      await verifyErrorEvidence(err);
      throw err;
    }
    await verifyRequestEvidence(result.request_evidence);
    return result;
  }

  /** Warms the role's reusable prompt prefix in the router's cache (204, nothing generated). */
  async warmRole(profileId: string, role: CatalystRole, body: RoleRequest = { messages: [] }, opts: RoleCallOptions = {}): Promise<void> {
    await this.transport.json<void>(this.rolePath(profileId, role, 'warm'), this.roleOptions(body, opts));
  }

  /** `POST /v2/context`: recall-first knowledge with the safety sweep. */
  context(body: ContextRequest, opts: RequestOptions = {}): Promise<ContextResponse> {
    return this.transport.json<ContextResponse>('/v2/context', { ...opts, body, apiKey: this.knowledgeApiKey });
  }

  /** `POST /v2/retrieve` as JSON. */
  retrieve(body: RetrieveRequest, opts: RequestOptions = {}): Promise<RetrieveResponse> {
    return this.transport.json<RetrieveResponse>('/v2/retrieve', { ...opts, body, apiKey: this.knowledgeApiKey });
  }

  /** `POST /v2/retrieve` rendered as Markdown or HTML (every value escaped). */
  async retrieveText(body: RetrieveRequest, format: 'markdown' | 'html', opts: RequestOptions = {}): Promise<string> {
    const accept = format === 'html' ? 'text/html' : 'text/markdown';
    const { response } = await this.transport.open('/v2/retrieve', { ...opts, body, apiKey: this.knowledgeApiKey, headers: { accept, ...opts.headers } });
    return response.text();
  }

  /** `POST /v2/retrieve/stream`: its NDJSON stages as an async iterable (resolves once headers arrived). */
  async retrieveStream(body: RetrieveRequest, opts: RequestOptions = {}): Promise<AsyncIterable<RetrieveStreamEvent>> {
    const { response, controller } = await this.transport.open('/v2/retrieve/stream', {
      ...opts, body, apiKey: this.knowledgeApiKey, headers: { accept: 'application/x-ndjson', ...opts.headers },
    });
    return ndjsonStages(response, controller);
  }

  /** `POST /v1/answer`: an extractive answer quoting the top verbatims. */
  answer(body: AnswerRequest, opts: RequestOptions = {}): Promise<AnswerResponse> {
    return this.transport.json<AnswerResponse>('/v1/answer', { ...opts, body, apiKey: this.knowledgeApiKey });
  }

  private rolePath(profileId: string, role: CatalystRole, kind: 'generate' | 'warm'): string {
    return `/v1/hub/query-profiles/${encodeURIComponent(profileId)}/roles/${encodeURIComponent(role)}/${kind}`;
  }

  private roleOptions(body: RoleRequest, opts: RoleCallOptions) {
    const headers = { ...opts.headers };
    if (opts.timeoutSeconds !== undefined) headers['x-request-timeout-seconds'] = String(opts.timeoutSeconds);
    return { signal: opts.signal, headers, body };
  }
}
