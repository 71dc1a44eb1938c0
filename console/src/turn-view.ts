/**
 * One asked turn on screen: its state (streaming, done, stopped, failed), the staged events in the order
 * they arrived with their time since the question left, and the latest envelope. Errors are shown for
 * what they are: `insufficient_context` names the records that could not fit; an `event: error` its code.
 */
import type { ErrorEventData, ProductEnvelope } from '../../clients/js/src/envelope.js';
import { APIError, InsufficientContextError } from '../../clients/js/src/errors.js';
import type { StagedEvent } from '../../clients/js/src/staged.js';
import { el, replace, type Child } from './dom.js';
import { envelopeView } from './envelope-view.js';

export type TurnState = 'streaming' | 'done' | 'stopped' | 'failed';

const STATE_TEXT: Record<TurnState, string> = {
  streaming: 'Streaming…',
  done: 'Done',
  stopped: 'Stopped: the connection was closed and the hub cancelled the turn.',
  failed: 'Failed',
};

/** Lists in an error's `detail` (mandatory ids, drug references, dropped records…), each shown with its name. */
function detailLists(detail: unknown): Child[] {
  if (typeof detail !== 'object' || detail === null) return [];
  const seen = new Set<string>();
  return Object.entries(detail as Record<string, unknown>).flatMap(([key, value]) => {
    if (!Array.isArray(value) || value.length === 0) return [];
    const shown = JSON.stringify(value);
    if (seen.has(shown)) return []; // the hub sends some lists under two spellings (mandatoryIds, mandatory_ids)
    seen.add(shown);
    const items = value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    return [el('div', { class: 'detail-list' }, el('h3', {}, `${key} (${items.length})`), el('p', { class: 'ids' }, items.slice(0, 200).join(', '), items.length > 200 ? ` … and ${items.length - 200} more` : ''))];
  });
}

export class TurnView {
  private readonly started = performance.now();
  private readonly status: HTMLElement;
  private readonly events: HTMLOListElement;
  private readonly body: HTMLElement;
  private readonly problem: HTMLElement;

  constructor(root: HTMLElement, question: string) {
    this.status = el('p', { class: 'turn-status', attrs: { 'data-testid': 'turn-status', 'data-state': 'streaming', role: 'status' } }, STATE_TEXT.streaming);
    this.events = el('ol', { class: 'events', attrs: { 'data-testid': 'events', 'aria-label': 'Staged events' } });
    this.body = el('div', { class: 'turn-body' });
    this.problem = el('div', { class: 'problem' });
    replace(root, el('p', { class: 'question' }, el('span', { class: 'muted' }, 'Question: '), question), this.status, this.events, this.problem, this.body);
  }

  event(event: StagedEvent): void {
    const seconds = ((performance.now() - this.started) / 1000).toFixed(2);
    this.events.append(el('li', { attrs: { 'data-event': event.name } }, el('code', {}, event.name), ` +${seconds} s`));
    if (event.name === 'error') return this.streamError(event.data);
    this.show(event.data);
    if (event.name === 'done') this.setState('done');
  }

  stopped(): void {
    this.setState('stopped');
  }

  /** A failure before or outside the stream (HTTP error, lost connection). */
  failed(err: unknown): void {
    this.setState('failed');
    if (err instanceof InsufficientContextError) {
      const detail = err.detail as { message?: string; source?: string };
      replace(this.problem, el('section', { class: 'card insufficient', attrs: { 'data-testid': 'insufficient-context' } },
        el('h2', {}, 'Insufficient context'),
        el('p', {}, detail.message ?? err.message),
        detail.source ? el('p', { class: 'muted' }, `Decided by: ${detail.source}. Nothing was sent to the model; these records were mandatory and could not fit:`) : null,
        ...detailLists(err.detail)));
      return;
    }
    if (err instanceof APIError) {
      replace(this.problem, el('section', { class: 'card error', attrs: { 'data-testid': 'api-error' } }, el('h2', {}, `HTTP ${err.status}${err.code ? ` · ${err.code}` : ''}`), el('p', {}, err.message), ...detailLists(err.detail)));
      return;
    }
    replace(this.problem, el('section', { class: 'card error', attrs: { 'data-testid': 'api-error' } }, el('h2', {}, 'No answer'), el('p', {}, err instanceof Error ? err.message : String(err))));
  }

  private streamError(data: ErrorEventData): void {
    this.setState('failed');
    replace(this.problem, el('section', { class: 'card error', attrs: { 'data-testid': 'stream-error' } }, el('h2', {}, `event: error · ${data.code}`), el('p', {}, data.message), el('p', { class: 'muted' }, `Source: ${data.source}`)));
  }

  private show(envelope: ProductEnvelope): void {
    replace(this.body, envelopeView(envelope));
  }

  private setState(state: TurnState): void {
    this.status.dataset.state = state;
    this.status.textContent = STATE_TEXT[state];
  }
}
