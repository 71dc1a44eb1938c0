/**
 * The console (issue 30) in Debian's Chromium against a live hub on a fake router: a staged answer renders
 * `answer_done` while In-Depth is still held at the router, then `done`; a citation opens its record; the
 * drug-safety badge shows a limited result with its warning; Stop frees the router slot; chart and model
 * text holding markup shows literally and runs nothing; the ask form works from the keyboard alone.
 * Screenshots land in test-artefacts/console/.
 */
import type { Page } from 'playwright-core';
import { artefactPath, launchChromium, type LaunchedBrowser } from '../support/browser';
import { buildConsole, DESKTOP, fillAsk, openConsole, PHONE, shownEvents, turnState, until, type ConsolePage } from '../support/console-page';
import { SMALL_CHART, useRouterAndHub } from '../support/hub';

// Functions handed to page.evaluate run in the page; this compiler has no DOM types.
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): { outlineStyle: string };

const APPROVED_DRUG_SAFETY = { DRUG_SAFETY_DATASET_PATH: 'test/fixtures/drug-safety/approved-package.json', DRUG_SAFETY_CROSS_REACTIVITY_PATH: 'test/fixtures/drug-safety/cross-reactivity.json' };
const QUESTION = 'How has the weight changed?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
// The second claim states the wrong trend: the In-Depth gate marks it with a note (never removes it).
const CLAIMS = ['The most recent weight, 71 kg, was recorded at the 2026-03-02 visit [2].', 'Weight increased from 74 kg on 2026-01-10 to 71 kg on 2026-03-02 [3][2].', 'A penicillin allergy with rash is documented [5].'];
const answerJson = (answer: string, citations: number[]) => JSON.stringify({ answer, citations, blocks: [] });

describe('the console in Chromium', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10', ...APPROVED_DRUG_SAFETY } });
  let chromium: LaunchedBrowser;
  let open: ConsolePage | undefined;

  beforeAll(async () => {
    await buildConsole();
    chromium = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await chromium?.close();
  });
  afterEach(async () => {
    // No script error and no CSP violation on any page a test opened.
    const problems = open?.problems ?? [];
    await open?.close();
    open = undefined;
    expect(problems).toEqual([]);
  });

  async function page(viewport = DESKTOP): Promise<Page> {
    open = await openConsole(chromium.browser, ctx.hub.url, viewport);
    return open.page;
  }

  /** Scripts a clean turn whose In-Depth call waits for `release()`. */
  function holdInDepth(): () => void {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => { release = resolve; });
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: CLAIMS }), hold }, { content: answerJson(ANSWER, [3, 2]) });
    return release;
  }

  test('the default profile answers an inline chart: answer_done renders before done, a citation opens its record', async () => {
    const p = await page();
    expect(await p.$eval('#profile', (s) => (s as unknown as { value: string }).value)).toBe('single-12b-bare');
    // Unavailable profiles are listed, disabled, with their reason (the fake router has no qwen3.5-9b).
    expect(await p.$eval('#profile option[value="single-12b-verify"]', (o) => [(o as unknown as { disabled: boolean }).disabled, o.textContent])).toEqual([true, expect.stringContaining('model_not_loaded:qwen3.5-9b')]);
    const release = holdInDepth();
    await fillAsk(p, SMALL_CHART, QUESTION);
    await p.click('#ask');
    await p.waitForSelector('[data-testid="answer-text"]');
    // The Answer is on screen while the router still holds the In-Depth call: by state, not by time.
    await until(() => ctx.router.openChats === 1, 'In-Depth call open at the router');
    expect(await p.textContent('[data-testid="answer-text"]')).toBe(ANSWER);
    expect(await shownEvents(p)).toEqual(['answer_done', 'indepth_pending']);
    expect(await turnState(p)).toBe('streaming');
    expect(await p.getAttribute('[data-testid="indepth"]', 'data-status')).toBe('pending');
    expect(await p.isEnabled('#stop')).toBe(true);
    release();
    await p.waitForSelector('[data-testid="turn-status"][data-state="done"]');
    expect(await shownEvents(p)).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);
    expect(await p.getAttribute('[data-testid="indepth"]', 'data-status')).toBe('complete');
    const claims = await p.$$eval('[data-testid="claim"]', (items) => items.map((li) => ({ marked: li.classList.contains('marked'), text: li.textContent ?? '' })));
    expect(claims).toHaveLength(3);
    expect(claims[1]).toMatchObject({ marked: true, text: expect.stringContaining('trend_direction') });
    expect(claims[0].marked).toBe(false);
    expect(await p.textContent('[data-testid="confidence-answer"]')).toContain('green');
    await p.screenshot({ path: artefactPath('console', 'answered-1280x800.png'), fullPage: true });

    // A citation marker opens its record: source text, date, source id.
    await p.click('[data-testid="answer-text"] .cite[data-ref="3"]');
    await p.waitForSelector('#record-dialog[open]');
    expect(await p.textContent('[data-testid="record-text"]')).toBe('(2026-01-10) Finding — Weight (kg): 74 kg');
    expect(await p.textContent('#record-body')).toContain('inline:3');
    await p.screenshot({ path: artefactPath('console', 'record-1280x800.png') });
    await p.keyboard.press('Escape');
    await p.waitForSelector('#record-dialog:not([open])', { state: 'attached' });
    expect(await p.evaluate(() => document.activeElement?.getAttribute('data-ref'))).toBe('3');
  });

  test('at 390×844 the answered turn fits the width (one column, nothing scrolls sideways)', async () => {
    const p = await page(PHONE);
    holdInDepth()();
    await fillAsk(p, SMALL_CHART, QUESTION);
    await p.click('#ask');
    await p.waitForSelector('[data-testid="turn-status"][data-state="done"]');
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    const form = await p.$eval('#ask-form', (f) => f.getBoundingClientRect().toJSON());
    const turn = await p.$eval('#turn', (t) => t.getBoundingClientRect().toJSON());
    expect(turn.top).toBeGreaterThanOrEqual(form.bottom); // stacked, not side by side
    await p.screenshot({ path: artefactPath('console', 'answered-390x844.png'), fullPage: true });
  });

  test('the drug-safety badge shows a limited result with its interaction warning and issues', async () => {
    const p = await page();
    const chart = 'Patient records (most recent first):\nPatient: 41-year-old Male\n[1] (2026-03-01) Finding — Weight (kg): 70 kg\n[2] (2026-02-01) Medication: Warfarin 5 mg\n[3] (2025-12-01) Allergy: Latex. Reaction: rash';
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: [] }) }, { content: answerJson('Ibuprofen adds bleeding risk with warfarin [2].', [2]) });
    await fillAsk(p, chart, 'Can I add ibuprofen?');
    await p.click('#ask');
    await p.waitForSelector('[data-testid="turn-status"][data-state="done"]');
    expect(await p.getAttribute('[data-testid="safety-badge"]', 'data-status')).toBe('limited');
    const warnings = await p.textContent('[data-testid="safety-warnings"]');
    expect(warnings).toContain('interaction');
    expect(warnings).toContain('interacts with active order warfarin');
    expect(await p.textContent('.safety .issues')).toContain('exposure_incomplete');
    await p.locator('.safety').screenshot({ path: artefactPath('console', 'drug-safety-1280x800.png') });
  });

  test('Stop closes the stream: the router slot is freed and the hub runs no turn', async () => {
    const p = await page();
    ctx.router.script({ fault: 'hang', times: 1 });
    await fillAsk(p, SMALL_CHART, 'stop me');
    await p.click('#ask');
    await until(() => ctx.router.openChats === 1, 'the Answer call open at the router');
    expect(await turnState(p)).toBe('streaming');
    // Focus moved to Stop when the turn began: Enter on it stops.
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('stop');
    await p.keyboard.press('Enter');
    await p.waitForSelector('[data-testid="turn-status"][data-state="stopped"]');
    await ctx.router.waitIdle();
    expect(ctx.router.openChats).toBe(0);
    await until(() => ctx.hub.activeTurns() === 0, 'no running turn');
    expect(ctx.hub.activeTurns()).toBe(0);
    expect(await p.isEnabled('#ask')).toBe(true);
    expect(await p.isDisabled('#stop')).toBe(true);
  });

  test('markup in chart and model text shows literally: no element made, no script run', async () => {
    const p = await page();
    await p.evaluate(() => { window.__pwned = undefined; });
    const line = '[6] (2026-02-01) Note: <img src=x onerror="window.__pwned=1"><script>window.__pwned=3</script>';
    const chart = `${SMALL_CHART}\n${line}`;
    const answer = 'The note reads <img src=x onerror=window.__pwned=2> [6].';
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: ['<b onmouseover=window.__pwned=4>bold</b> claim [6].'] }) }, { content: answerJson(answer, [6]) });
    await fillAsk(p, chart, 'What does the <img src=x onerror=window.__pwned=5> note say?');
    await p.click('#ask');
    await p.waitForSelector('[data-testid="turn-status"][data-state="done"]');
    expect(await p.textContent('[data-testid="answer-text"]')).toBe(answer);
    expect(await p.textContent('.question')).toContain('<img src=x onerror=window.__pwned=5>');
    expect(await p.textContent('[data-testid="claim"]')).toContain('<b onmouseover=window.__pwned=4>bold</b>');
    await p.click('[data-testid="answer-text"] .cite[data-ref="6"]');
    await p.waitForSelector('#record-dialog[open]');
    expect(await p.textContent('[data-testid="record-text"]')).toBe('(2026-02-01) Note: <img src=x onerror="window.__pwned=1"><script>window.__pwned=3</script>');
    await p.screenshot({ path: artefactPath('console', 'injection-literal-1280x800.png') });
    const made = await p.evaluate(() => ({ img: document.querySelectorAll('img').length, script: document.querySelectorAll('body script').length, b: document.querySelectorAll('b').length, pwned: window.__pwned }));
    expect(made).toEqual({ img: 0, script: 0, b: 0, pwned: undefined });
  });

  test('keyboard only: Tab walks the form in order with a visible focus ring, Enter asks, Enter opens a record', async () => {
    const p = await page();
    holdInDepth()();
    const order: Array<{ id: string; outline: string }> = [];
    for (let i = 0; i < 8; i++) {
      await p.keyboard.press('Tab');
      order.push(await p.evaluate(() => {
        const active = document.activeElement;
        return { id: active.id, outline: getComputedStyle(active).outlineStyle };
      }));
    }
    expect(order.map((o) => o.id)).toEqual(['hub-key', 'knowledge-key', 'tab-ask', 'profile', 'chart', 'patient', 'question', 'ask']);
    for (const o of order) expect(o.outline).not.toBe('none');
    // Back to the chart and fill everything from the keyboard.
    await p.keyboard.press('Shift+Tab');
    await p.keyboard.press('Shift+Tab');
    await p.keyboard.press('Shift+Tab');
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('chart');
    await p.keyboard.insertText(SMALL_CHART);
    await p.keyboard.press('Tab');
    await p.keyboard.press('Tab');
    await p.keyboard.type(QUESTION);
    await p.keyboard.press('Enter');
    await p.waitForSelector('[data-testid="turn-status"][data-state="done"]');
    expect(await p.textContent('[data-testid="answer-text"]')).toBe(ANSWER);
    // Focus came back to Ask; the next Tab stops reach the citation buttons in reading order.
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('ask');
    let reached = '';
    for (let i = 0; i < 10 && !reached; i++) {
      await p.keyboard.press('Tab');
      reached = await p.evaluate(() => (document.activeElement?.classList.contains('cite') ? document.activeElement.getAttribute('data-ref') ?? '' : ''));
    }
    expect(reached).toBe('3');
    await p.keyboard.press('Enter');
    await p.waitForSelector('#record-dialog[open]');
    expect(await p.textContent('[data-testid="record-text"]')).toContain('74 kg');
    await p.keyboard.press('Escape');
    await p.waitForSelector('#record-dialog:not([open])', { state: 'attached' });
  });
});
