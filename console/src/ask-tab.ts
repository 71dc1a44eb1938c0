/**
 * The Ask tab: a profile from `/v1/models` (unavailable ones listed, disabled, with their reasons), an
 * inline chart or a QueryStore patient id, a question; Ask streams the staged answer, Stop closes the
 * connection (the hub cancels the turn and frees its model slot).
 */
import type { ChatMessage, ChatRequest, ModelInfo } from '../../clients/js/src/types.js';
import { APIError } from '../../clients/js/src/errors.js';
import { byId, el, replace } from './dom.js';
import { listModels, openStream } from './hub-api.js';
import { TurnView } from './turn-view.js';

let running: AbortController | null = null;

function reasonsOf(model: ModelInfo): string {
  const reasons = model.unavailable_reasons ?? [];
  return reasons.length ? reasons.join('; ') : 'unavailable';
}

/** Fills the profile list; product profiles first, the hub's default selected. */
export async function loadProfiles(): Promise<void> {
  const select = byId<HTMLSelectElement>('profile');
  const note = byId<HTMLElement>('profile-note');
  const previous = select.value;
  note.textContent = 'Loading profiles…';
  let models: ModelInfo[];
  try {
    models = (await listModels()).data;
  } catch (err) {
    replace(select);
    note.textContent = err instanceof APIError && (err.status === 401 || err.status === 403)
      ? `${err.message} Type the hub's API key above; profiles load when it is entered.`
      : `Could not list profiles: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  const staged = models.filter((m) => m.staged);
  const options = staged.map((m) => el('option', { attrs: { value: m.id, disabled: m.available === false, 'data-default': m.default === true } }, `${m.id}${m.default ? ' (default)' : ''}${m.available === false ? ` — unavailable: ${reasonsOf(m)}` : ''}`));
  replace(select, ...options);
  const chosen = staged.find((m) => m.id === previous && m.available !== false) ?? staged.find((m) => m.default) ?? staged.find((m) => m.available !== false);
  if (chosen) select.value = chosen.id;
  const unavailable = staged.filter((m) => m.available === false);
  replace(note, unavailable.length ? el('span', {}, `${unavailable.length} unavailable: `, unavailable.map((m) => `${m.id} (${reasonsOf(m)})`).join(', ')) : 'Every staged profile is available.');
  updateProfileHelp(staged);
  select.onchange = () => updateProfileHelp(staged);
}

function updateProfileHelp(models: ModelInfo[]): void {
  const model = models.find((m) => m.id === byId<HTMLSelectElement>('profile').value);
  byId('profile-help').textContent = model?.label ?? '';
}

function requestOf(): ChatRequest | string {
  const model = byId<HTMLSelectElement>('profile').value;
  const chart = byId<HTMLTextAreaElement>('chart').value;
  const patient = byId<HTMLInputElement>('patient').value.trim();
  const question = byId<HTMLInputElement>('question').value.trim();
  if (!model) return 'Choose a profile first (the list comes from /v1/models).';
  if (!question) return 'Type a question.';
  if (chart.trim() && patient) return 'Give an inline chart or a QueryStore patient id, not both.';
  const messages: ChatMessage[] = chart.trim() ? [{ role: 'user', content: chart }, { role: 'user', content: question }] : [{ role: 'user', content: question }];
  return patient ? { model, patient, messages } : { model, messages };
}

async function ask(): Promise<void> {
  if (running) return;
  const form = byId<HTMLParagraphElement>('form-message');
  const request = requestOf();
  if (typeof request === 'string') {
    form.textContent = request;
    return;
  }
  form.textContent = '';
  const controller = new AbortController();
  running = controller;
  setRunning(true);
  const view = new TurnView(byId('turn'), request.messages[request.messages.length - 1].content);
  try {
    const stream = await openStream(request, controller.signal);
    for await (const event of stream) view.event(event);
  } catch (err) {
    if (controller.signal.aborted) view.stopped();
    else view.failed(err);
  } finally {
    running = null;
    setRunning(false);
  }
}

function setRunning(on: boolean): void {
  byId<HTMLButtonElement>('ask').disabled = on;
  const stop = byId<HTMLButtonElement>('stop');
  stop.disabled = !on;
  // Focus follows the action that is possible now, so a keyboard user can stop or ask again at once.
  if (on) stop.focus();
  else if (document.activeElement === stop || document.activeElement === document.body) byId<HTMLButtonElement>('ask').focus();
}

export function initAskTab(): void {
  byId<HTMLFormElement>('ask-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void ask();
  });
  byId<HTMLButtonElement>('stop').addEventListener('click', () => running?.abort());
  void loadProfiles();
}
