/**
 * One product envelope as people read it: the Answer with its citation markers as buttons, confidence and
 * validation, table blocks, In-Depth claims with their marks and notes, the references and what the
 * context kept or dropped. Each staged event carries the whole envelope, so the view is redrawn from it.
 */
import type { ConfidenceLevel, InDepth, ProductEnvelope, Reference, TableBlock } from '../../clients/js/src/envelope.js';
import { splitCitations } from './citations.js';
import { el, type Child } from './dom.js';
import { openReference } from './reference-dialog.js';
import { safetyView } from './safety-view.js';

/** Text with each `[n]` turned into a button opening record n (in order, so the tab order follows the text). */
export function citedText(text: string, references: readonly Reference[]): Child[] {
  return splitCitations(text).map((piece) => {
    if ('text' in piece) return piece.text;
    return el('span', { class: 'cites' }, ...piece.refs.map((n) => {
      const ref = references.find((r) => r.index === n);
      const label = ref?.title ? `Open record ${n}: ${ref.title}` : `Open record ${n}`;
      return el('button', { class: `cite${ref?.resolutionStatus === 'unresolved' || !ref ? ' unresolved' : ''}`, attrs: { type: 'button', 'aria-label': label, 'data-ref': n }, on: { click: () => openReference(n, references) } }, `[${n}]`);
    }));
  });
}

function confidenceBadge(name: string, level: ConfidenceLevel | undefined): Child {
  if (!level) return null;
  const shown = level.level ?? 'findings';
  return el(
    'div',
    { class: 'confidence' },
    el('span', { class: `badge level-${shown}`, attrs: { 'data-testid': `confidence-${name}` } }, `${name === 'answer' ? 'Answer' : 'In-Depth'} confidence: ${shown}`),
    level.note ? el('span', { class: 'note' }, level.note) : null,
    level.findings?.length ? el('ul', { class: 'findings' }, ...level.findings.map((f) => el('li', {}, `${f.check} (${String(f.where)}): ${f.status} — ${f.says}`))) : null,
  );
}

function tableBlock(block: TableBlock, references: readonly Reference[]): HTMLElement {
  return el(
    'figure',
    { class: 'block' },
    el('figcaption', {}, block.title),
    el(
      'div',
      { class: 'table-scroll' },
      el(
        'table',
        {},
        el('thead', {}, el('tr', {}, ...block.columns.map((c) => el('th', { attrs: { scope: 'col' } }, c.label)))),
        el('tbody', {}, ...block.rows.map((row) => el('tr', {}, ...block.columns.map((c) => {
          const cell = row.cells[c.key];
          return el('td', {}, ...(cell ? citedText(cell.text, references) : []), ...(cell?.refs ?? []).flatMap((n) => [' ', ...citedText(`[${n}]`, references)]));
        })))),
      ),
    ),
  );
}

interface Mark { claim_index: number; check: string; level: string; note: string }

function claimsOf(inDepth: InDepth): string[] {
  const validated = (inDepth.validation as { claims?: unknown } | null | undefined)?.claims;
  if (Array.isArray(validated) && validated.every((c) => typeof c === 'string')) return validated as string[];
  return inDepth.answer.split('\n').map((line) => line.replace(/^\s*[-*]\s+/, '').trim()).filter(Boolean);
}

function inDepthView(inDepth: InDepth | undefined, confidence: ConfidenceLevel | undefined, references: readonly Reference[]): Child {
  if (!inDepth) return null;
  const marks = ((inDepth.validation as { marked?: Mark[] } | null | undefined)?.marked ?? []).filter((m) => typeof m?.claim_index === 'number');
  const claims = inDepth.status === 'pending' ? [] : claimsOf(inDepth);
  return el(
    'section',
    { class: 'card indepth', attrs: { 'aria-labelledby': 'indepth-heading', 'data-testid': 'indepth', 'data-status': inDepth.status } },
    el('h2', { id: 'indepth-heading' }, 'In-Depth ', el('span', { class: `badge indepth-${inDepth.status}` }, inDepth.status)),
    confidenceBadge('in_depth', confidence),
    inDepth.status === 'pending' ? el('p', { class: 'muted pending' }, 'In-Depth is being written and checked…') : null,
    claims.length
      ? el('ol', { class: 'claims' }, ...claims.map((claim, i) => {
        const own = marks.filter((m) => m.claim_index === i + 1);
        return el(
          'li',
          { class: own.length ? `marked mark-${own.some((m) => m.level === 'red') ? 'red' : 'yellow'}` : 'clean', attrs: { 'data-testid': 'claim' } },
          el('p', {}, ...citedText(claim, references)),
          ...own.map((m) => el('p', { class: `mark level-${m.level}` }, el('span', { class: 'badge' }, `${m.level} · ${m.check}`), ' ', ...citedText(m.note, references))),
        );
      }))
      : inDepth.status !== 'pending' && !inDepth.error ? el('p', { class: 'muted' }, 'No In-Depth points.') : null,
    inDepth.error ? el('p', { class: 'warn' }, inDepth.error) : null,
    inDepth.errorCode ? el('div', { class: 'insufficient' }, el('strong', {}, `${inDepth.errorCode}: `), 'In-Depth did not fit; mandatory records: ', (inDepth.mandatorySourceIds ?? []).join(', ') || 'none named') : null,
  );
}

function referencesView(references: readonly Reference[]): Child {
  if (!references.length) return null;
  const sorted = [...references].sort((a, b) => a.index - b.index);
  return el(
    'section',
    { class: 'card', attrs: { 'aria-labelledby': 'refs-heading' } },
    el('h2', { id: 'refs-heading' }, `References (${references.length})`),
    el('ul', { class: 'refs' }, ...sorted.map((r) => el(
      'li',
      {},
      el('button', { class: 'ref-open', attrs: { type: 'button', 'data-ref': r.index }, on: { click: () => openReference(r.index, references) } }, `[${r.index}]`),
      ' ',
      el('span', {}, r.title ?? r.sourceId ?? ''),
      ' ',
      el('span', { class: `tag res-${r.resolutionStatus}` }, r.resolutionStatus),
      r.support ? el('span', { class: 'tag' }, r.support) : el('span', { class: 'tag' }, r.groundingStatus),
    ))),
  );
}

function contextView(envelope: ProductEnvelope): Child {
  const context = envelope.context as Record<string, any> | null;
  if (!context) return null;
  const excluded: Array<{ source_id?: string; reason?: string }> = Array.isArray(context.excluded) ? context.excluded : [];
  const droppedTurns: unknown[] = Array.isArray(context.history?.dropped_turns) ? context.history.dropped_turns : [];
  return el(
    'details',
    { class: 'card context' },
    el('summary', {}, `Context: ${Array.isArray(context.included) ? context.included.length : 0} records included, ${excluded.length} dropped`, context.input_tokens ? ` · ${context.input_tokens} of ${context.input_limit} input tokens` : ''),
    excluded.length ? el('ul', {}, ...excluded.map((x) => el('li', {}, el('code', {}, x.source_id ?? '?'), ' ', x.reason ?? ''))) : el('p', { class: 'muted' }, 'Nothing was dropped.'),
    droppedTurns.length ? el('p', {}, `Conversation turns dropped to fit: ${droppedTurns.length}`) : null,
    el('p', { class: 'muted' }, `Selection: ${String(context.selection_mode ?? 'unknown')}; sources: ${Array.isArray(context.sources) ? context.sources.join(', ') : ''}`),
  );
}

export function envelopeView(envelope: ProductEnvelope): HTMLElement {
  const validation = envelope.answerValidation;
  return el(
    'div',
    { class: 'envelope' },
    el(
      'section',
      { class: 'card answer', attrs: { 'aria-labelledby': 'answer-heading' } },
      el('h2', { id: 'answer-heading' }, 'Answer ', el('span', { class: 'muted model' }, envelope.model)),
      el('p', { class: 'answer-text', attrs: { 'data-testid': 'answer-text' } }, ...citedText(envelope.answer, envelope.references)),
      ...envelope.blocks.map((b) => tableBlock(b, envelope.references)),
      confidenceBadge('answer', envelope.confidence?.answer),
      validation ? el('p', { class: 'validation' }, el('span', { class: `badge validation-${validation.status}` }, validation.label || validation.status), ' ', validation.summary) : null,
      validation?.issues.length ? el('ul', { class: 'issues' }, ...validation.issues.map((i) => el('li', {}, el('code', {}, String(i.id ?? i.check ?? 'issue')), ' ', String(i.reason ?? i.message ?? i.note ?? JSON.stringify(i))))) : null,
      envelope.temporalGate ? el('p', { class: 'muted' }, `Temporal gate: ${envelope.temporalGate.status} (${envelope.temporalGate.mode})`) : null,
    ),
    safetyView(envelope.safetyCheck),
    inDepthView(envelope.inDepth, envelope.confidence?.in_depth, envelope.references),
    referencesView(envelope.references),
    contextView(envelope),
  );
}
