/**
 * The hub as the console calls it, through the JS client's own transport, SSE reader and error classes
 * (clients/js): the page is one more client. Keys live in this module's memory only: never in
 * localStorage, sessionStorage or a cookie, so closing or reloading the tab forgets them.
 */
import { Transport } from '../../clients/js/src/http.js';
import { StagedStream } from '../../clients/js/src/stream.js';
import type { ChatRequest, ModelList } from '../../clients/js/src/types.js';
import type { RetrieveRequest } from '../../clients/js/src/knowledge.js';

const keys = { hub: '', knowledge: '' };

export function setHubKey(key: string): void {
  keys.hub = key.trim();
}

export function setKnowledgeKey(key: string): void {
  keys.knowledge = key.trim();
}

/** The hub's root: the console lives at `<root>/console/`. */
function hubRoot(): string {
  return new URL('..', window.location.href).href;
}

function transport(apiKey: string): Transport {
  // The wait bound covers response headers only: a staged answer may then take minutes.
  return new Transport({ baseURL: hubRoot(), apiKey: apiKey || undefined, fetch: window.fetch.bind(window), timeoutMs: 30_000, headers: {} });
}

export function listModels(signal?: AbortSignal): Promise<ModelList> {
  return transport(keys.hub).json<ModelList>('/v1/models', { signal });
}

/** Opens a staged answer; aborting `signal` closes the connection, which the hub takes as a cancellation. */
export async function openStream(body: ChatRequest, signal: AbortSignal): Promise<StagedStream> {
  const { response, controller } = await transport(keys.hub).open('/v1/chat/completions', {
    body: { ...body, stream: true },
    signal,
    headers: { accept: 'text/event-stream' },
  });
  return new StagedStream(response, controller);
}

/** `POST /v2/retrieve` rendered by the hub as Markdown or HTML (every value escaped by the hub). */
export async function retrieveRendered(body: RetrieveRequest, format: 'markdown' | 'html', signal?: AbortSignal): Promise<string> {
  const accept = format === 'html' ? 'text/html' : 'text/markdown';
  const { response } = await transport(keys.knowledge).open('/v2/retrieve', { body, signal, headers: { accept } });
  return response.text();
}
