/**
 * Who may do what on the console (issue 30): with HUB_API_KEYS set the static shell loads without a key
 * (it holds no data) while every API call it makes needs the key typed into the page, which is kept in
 * memory only; the Knowledge tab calls /v2/retrieve with its own lsk_ key and shows the hub's HTML in a
 * sandboxed frame (no scripts) and its Markdown as text. Also the headers the shell is served with.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { artefactPath, launchChromium, type LaunchedBrowser } from '../support/browser';
import { buildConsole, openConsole, type ConsolePage } from '../support/console-page';
import { SMALL_CHART, useRouterAndHub } from '../support/hub';
import { FIXTURES, KEYS } from '../support/knowledge-service';

// Functions handed to page.evaluate run in the page; this compiler has no DOM types.
declare const document: any;
declare const window: any;

const HUB_KEY = 'console-test-key-0123456789';
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(base), { path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString('utf8'); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the console behind HUB_API_KEYS, with the knowledge routes', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10', HUB_API_KEYS: sha256(HUB_KEY), KNOWLEDGE_CONTENT: FIXTURES, KNOWLEDGE_API_KEY_HASHES: sha256(KEYS.open) } });
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
    const problems = (open?.problems ?? []).filter((p) => !/status of 40[13]/.test(p)); // refused API calls are the point here
    await open?.close();
    open = undefined;
    expect(problems).toEqual([]);
  });

  test('the shell is served without a key, with a strict CSP; the API still refuses a request without one', async () => {
    const shell = await fetch(`${ctx.hub.url}/console/`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-type')).toContain('text/html');
    expect(shell.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(shell.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(shell.headers.get('x-content-type-options')).toBe('nosniff');
    const redirect = await fetch(`${ctx.hub.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/console/');
    for (const bad of ['/console/nope.js', '/console/console/src/main.ts']) expect((await fetch(`${ctx.hub.url}${bad}`)).status).toBe(404);
    // Sent byte for byte (fetch would normalise the dots away): nothing outside the built folder is served.
    for (const escape of ['/console/../../package.json', '/console/%2e%2e/%2e%2e/package.json', '/console/..%2f..%2fpackage.json']) {
      const res = await rawGet(ctx.hub.url, escape);
      expect([403, 404]).toContain(res.status);
      expect(res.body).not.toContain('med-agent-hub');
    }
    expect((await fetch(`${ctx.hub.url}/v1/models`)).status).toBe(401);
    expect((await fetch(`${ctx.hub.url}/console/`, { method: 'POST' })).status).toBe(401); // only GET/HEAD pass before the key check
  });

  test('profiles load once the key is typed; the key is kept in memory only and an answer streams with it', async () => {
    open = await openConsole(chromium.browser, ctx.hub.url);
    const p = open.page;
    expect(await p.textContent('#profile-note')).toContain('Type the hub');
    expect(await p.$$eval('#profile option', (o) => o.length)).toBe(0);
    await p.fill('#hub-key', HUB_KEY);
    await p.press('#hub-key', 'Enter');
    await p.waitForSelector('#profile option[value="single-12b-bare"]', { state: 'attached' });
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: [] }) }, { content: JSON.stringify({ answer: 'Weight is 71 kg [2].', citations: [2], blocks: [] }) });
    await p.fill('#chart', SMALL_CHART);
    await p.fill('#question', 'Weight?');
    await p.click('#ask');
    await p.waitForSelector('[data-testid="turn-status"][data-state="done"]');
    expect(await p.textContent('[data-testid="answer-text"]')).toBe('Weight is 71 kg [2].');
    const stored = await p.evaluate(() => ({ local: window.localStorage.length, session: window.sessionStorage.length, cookie: document.cookie }));
    expect(stored).toEqual({ local: 0, session: 0, cookie: '' });
    const cookies = await p.context().cookies();
    expect(cookies).toEqual([]);
    // A reload forgets the key: the page asks for it again.
    await p.reload();
    await p.waitForFunction(() => /Type the hub/.test(document.getElementById('profile-note')?.textContent ?? ''));
  });

  test('the Knowledge tab: its own lsk_ key, HTML in a script-less sandboxed frame, Markdown as text', async () => {
    open = await openConsole(chromium.browser, ctx.hub.url);
    const p = open.page;
    await p.click('#tab-knowledge');
    expect(await p.isVisible('#panel-ask')).toBe(false);
    await p.fill('#kb-query', 'allergie pénicilline <img src=x onerror=window.__pwned=1>');
    await p.click('#kb-submit');
    await p.waitForSelector('[data-testid="kb-error"]');
    expect(await p.textContent('[data-testid="kb-error"]')).toContain('401');
    await p.fill('#knowledge-key', KEYS.open);
    await p.click('#kb-submit');
    const frame = await p.waitForSelector('[data-testid="kb-html"]');
    expect(await frame.getAttribute('sandbox')).toBe('');
    const inner = await frame.contentFrame();
    await inner!.waitForSelector('body');
    const body = await inner!.textContent('body');
    expect(body).toContain('<img src=x onerror=window.__pwned=1>'); // the hub escaped the query it echoes: shown, not made
    expect(await inner!.$$eval('img', (imgs) => imgs.length)).toBe(0);
    expect(await p.evaluate(() => window.__pwned)).toBeUndefined();
    await p.screenshot({ path: artefactPath('console', 'knowledge-html-1280x800.png'), fullPage: true });
    await p.selectOption('#kb-format', 'markdown');
    await p.click('#kb-submit');
    await p.waitForSelector('[data-testid="kb-markdown"]');
    expect(await p.textContent('[data-testid="kb-markdown"]')).toMatch(/pénicilline/i);
  });
});
