/**
 * The record behind a citation marker, in a modal dialog (keyboard: it takes focus, Escape closes it and
 * focus returns to the marker): source text as sent, date, ids, resolution and grounding, provenance
 * (knowledge records and drug references), and where the turn used it.
 */
import type { Reference } from '../../clients/js/src/envelope.js';
import { byId, el, replace } from './dom.js';

function row(label: string, value: string | null | undefined) {
  if (value === null || value === undefined || value === '') return null;
  return el('div', { class: 'kv' }, el('dt', {}, label), el('dd', {}, value));
}

export function openReference(index: number, references: readonly Reference[]): void {
  const dialog = byId<HTMLDialogElement>('record-dialog');
  const body = byId<HTMLDivElement>('record-body');
  const ref = references.find((r) => r.index === index);
  byId('record-title').textContent = `Record [${index}]`;
  if (!ref) {
    replace(body, el('p', { class: 'warn' }, `The answer cites [${index}], but the envelope has no reference with that index.`));
  } else {
    const provenance = Object.entries(ref.provenance ?? {});
    replace(
      body,
      el('pre', { class: 'record-text', attrs: { 'data-testid': 'record-text' } }, ref.sourceText ?? '(the hub sent no source text for this record)'),
      el(
        'dl',
        { class: 'record-meta' },
        row('Date', ref.date ?? 'undated'),
        row('Title', ref.title),
        row('Source', ref.source),
        row('Source id', ref.sourceId),
        row('Resource type', ref.resourceType),
        row('Resource uuid', ref.resourceUuid ?? undefined),
        row('Resolution', ref.resolutionStatus),
        row('Grounding', ref.support ? `${ref.groundingStatus} (support: ${ref.support})` : ref.groundingStatus),
      ),
      provenance.length ? el('h3', {}, 'Provenance') : null,
      provenance.length ? el('dl', { class: 'record-meta' }, ...provenance.map(([k, v]) => row(k, typeof v === 'string' ? v : JSON.stringify(v)))) : null,
      ref.usage.length ? el('h3', {}, 'Used in') : null,
      ref.usage.length ? el('ul', { class: 'usage' }, ...ref.usage.map((u) => el('li', {}, el('span', { class: 'tag' }, u.location), ' ', u.text))) : null,
    );
  }
  if (!dialog.open) dialog.showModal();
}

/** Wires the dialog's close button once; `showModal` gives Escape and focus return for free. */
export function initReferenceDialog(): void {
  const dialog = byId<HTMLDialogElement>('record-dialog');
  byId<HTMLButtonElement>('record-close').addEventListener('click', () => dialog.close());
}
