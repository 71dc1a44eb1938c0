/**
 * The Knowledge tab: `POST /v2/retrieve` with the knowledge layer's own `lsk_` key, rendered by the hub.
 * Markdown is shown as the text it is. HTML (the hub escapes every value in it) is shown in an iframe with
 * an empty `sandbox`: no scripts, no forms, no navigation of this page, an opaque origin, so even markup
 * that slipped through could not run or reach the console or its keys.
 */
import { APIError } from '../../clients/js/src/errors.js';
import { byId, el, replace } from './dom.js';
import { retrieveRendered } from './hub-api.js';

async function retrieve(): Promise<void> {
  const query = byId<HTMLInputElement>('kb-query').value.trim();
  const format = byId<HTMLSelectElement>('kb-format').value === 'markdown' ? 'markdown' : 'html';
  const out = byId('kb-result');
  if (!query) {
    replace(out, el('p', { class: 'warn' }, 'Type a query.'));
    return;
  }
  replace(out, el('p', { class: 'muted', attrs: { role: 'status' } }, 'Retrieving…'));
  const button = byId<HTMLButtonElement>('kb-submit');
  button.disabled = true;
  try {
    const text = await retrieveRendered({ query }, format);
    if (format === 'markdown') {
      replace(out, el('pre', { class: 'kb-markdown', attrs: { 'data-testid': 'kb-markdown' } }, text));
    } else {
      const frame = el('iframe', { class: 'kb-html', attrs: { sandbox: '', title: 'Knowledge answer (HTML rendered by the hub)', 'data-testid': 'kb-html', referrerpolicy: 'no-referrer' } });
      frame.srcdoc = text;
      replace(out, frame);
    }
  } catch (err) {
    const hint = err instanceof APIError && err.status === 401 ? ' The knowledge routes take their own lsk_ key: type it in "Knowledge key" above.' : '';
    replace(out, el('section', { class: 'card error', attrs: { 'data-testid': 'kb-error' } }, el('h2', {}, err instanceof APIError ? `HTTP ${err.status}${err.code ? ` · ${err.code}` : ''}` : 'No answer'), el('p', {}, `${err instanceof Error ? err.message : String(err)}${hint}`)));
  } finally {
    button.disabled = false;
  }
}

export function initKnowledgeTab(): void {
  byId<HTMLFormElement>('kb-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void retrieve();
  });
}
