/**
 * What a llama.cpp router with one slot would see at once (decision 5). Every request is open from its
 * arrival (body read) to its answer. A chat completion runs its model; any other request that names a
 * model (a POST body's `model`, a GET's `?model=`) makes a router in router mode load that model when it
 * is not loaded. So two requests naming different models open at once are an overlap: on a single GPU the
 * router would load, and may evict, a model beside a busy one. Requests naming no model (/v1/models,
 * /health) are served by the router itself and are only noted when they arrive beside a chat.
 */
import type { RecordedRequest } from './fake-router';

export interface ModelOverlap {
  /** `METHOD /path` of the request that arrived. */
  request: string;
  model: string;
  /** Models other requests open at its arrival named. */
  busy: string[];
}

export function namedModel(rec: Pick<RecordedRequest, 'method' | 'body' | 'query'>): string | null {
  const name: unknown = rec.method === 'GET' ? rec.query.model : rec.body?.model;
  return typeof name === 'string' && name !== '' ? name : null;
}

export class RouterLedger {
  /** Chat completions open now, and the most ever open at once. */
  chatsOpen = 0;
  maxChats = 0;
  /** The most different models ever named by the requests open at once. */
  maxModels = 0;
  /** Requests that arrived while one for another model was open. */
  readonly overlaps: ModelOverlap[] = [];
  /** `METHOD /path` of requests naming no model that arrived while a chat was open. */
  readonly besideChats: string[] = [];
  /** Open requests per model they name. */
  private readonly open = new Map<string, number>();

  /** Records an arrival; the returned function records its answer (call it once). */
  arrived(rec: Pick<RecordedRequest, 'method' | 'path' | 'body' | 'query'>, isChat: boolean): () => void {
    const model = namedModel(rec);
    const request = `${rec.method} ${rec.path}`;
    if (model === null) {
      if (this.chatsOpen > 0) this.besideChats.push(request);
    } else {
      const busy = [...this.open.keys()].filter((m) => m !== model);
      if (busy.length > 0) this.overlaps.push({ request, model, busy });
      this.open.set(model, (this.open.get(model) ?? 0) + 1);
      this.maxModels = Math.max(this.maxModels, this.open.size);
    }
    if (isChat) this.maxChats = Math.max(this.maxChats, ++this.chatsOpen);
    return () => {
      if (isChat) this.chatsOpen--;
      if (model === null) return;
      const left = (this.open.get(model) ?? 1) - 1;
      if (left > 0) this.open.set(model, left);
      else this.open.delete(model);
    };
  }

  /** Forgets the record, keeping what is open now (as a fresh test sees it). */
  reset(): void {
    this.maxChats = this.chatsOpen;
    this.maxModels = this.open.size;
    this.overlaps.length = 0;
    this.besideChats.length = 0;
  }
}
