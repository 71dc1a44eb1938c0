/** The console page's entry: API keys kept in memory, the two tabs, the record dialog. */
import { initAskTab, loadProfiles } from './ask-tab.js';
import { byId } from './dom.js';
import { setHubKey, setKnowledgeKey } from './hub-api.js';
import { initKnowledgeTab } from './knowledge-tab.js';
import { initReferenceDialog } from './reference-dialog.js';

function initTabs(): void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
  const select = (chosen: HTMLButtonElement, focus: boolean) => {
    for (const tab of tabs) {
      const on = tab === chosen;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      byId(tab.getAttribute('aria-controls') ?? '').hidden = !on;
    }
    if (focus) chosen.focus();
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => select(tab, false));
    // Arrow keys move between tabs (the WAI-ARIA tabs pattern); Tab moves on into the panel.
    tab.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      event.preventDefault();
      select(tabs[(i + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length], true);
    });
  });
}

function initKeys(): void {
  const hubKey = byId<HTMLInputElement>('hub-key');
  // Profiles reload once a key is entered (change: on blur or Enter), not on every keystroke.
  hubKey.addEventListener('change', () => {
    setHubKey(hubKey.value);
    void loadProfiles();
  });
  hubKey.addEventListener('input', () => setHubKey(hubKey.value));
  const knowledgeKey = byId<HTMLInputElement>('knowledge-key');
  knowledgeKey.addEventListener('input', () => setKnowledgeKey(knowledgeKey.value));
}

initKeys();
initTabs();
initReferenceDialog();
initAskTab();
initKnowledgeTab();
