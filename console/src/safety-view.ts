/** The drug-safety result (`safetyCheck`, drug_safety.v1): a status badge, its warnings and the issues that limit it. */
import type { DrugSafetyCheck } from '../../clients/js/src/envelope.js';
import { el } from './dom.js';

const STATUS_TEXT: Record<string, string> = {
  checked: 'Drug safety checked',
  limited: 'Drug safety limited',
  unavailable: 'Drug safety unavailable',
};

function otherFields(item: Record<string, unknown>): string {
  return Object.entries(item)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
}

export function safetyView(check: DrugSafetyCheck | undefined): HTMLElement {
  if (!check) return el('section', { class: 'card' }, el('h2', {}, 'Drug safety'), el('p', {}, 'The envelope carries no safetyCheck.'));
  const pkg = check.package ?? null;
  return el(
    'section',
    { class: 'card safety', attrs: { 'aria-labelledby': 'safety-heading' } },
    el('h2', { id: 'safety-heading' }, 'Drug safety ', el('span', { class: `badge safety-${check.status}`, attrs: { 'data-testid': 'safety-badge', 'data-status': check.status } }, STATUS_TEXT[check.status] ?? check.status)),
    check.warnings.length
      ? el('ul', { class: 'warnings', attrs: { 'data-testid': 'safety-warnings' } }, ...check.warnings.map((w) => el(
        'li',
        {},
        el('span', { class: 'badge level-red' }, String(w.type ?? 'warning')),
        ' ',
        el('strong', {}, String(w.drug ?? '')),
        w.detail ? ` — ${String(w.detail)}` : '',
        w.severity ? el('span', { class: 'tag' }, `severity: ${String(w.severity)}`) : null,
        otherFields(Object.fromEntries(Object.entries(w).filter(([k]) => !['type', 'drug', 'detail', 'severity'].includes(k)))) || null,
      )))
      : el('p', { class: 'muted' }, 'No warnings.'),
    check.issues.length ? el('h3', {}, 'Issues') : null,
    check.issues.length ? el('ul', { class: 'issues' }, ...check.issues.map((i) => el('li', {}, el('code', {}, String(i.id ?? 'issue')), ' ', String(i.reason ?? '')))) : null,
    el('p', { class: 'muted' }, pkg ? `Package ${String(pkg.id)} ${String(pkg.version ?? '')} (${String(pkg.review_state ?? 'unknown review state')}); identity ${check.identity_confidence ?? 'none'}.` : 'No drug-safety package loaded.'),
  );
}
