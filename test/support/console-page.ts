/**
 * The console page in Chromium for browser tests: the console built once per file (scripts/build-console.js,
 * into the checkout's dist/console/, which the hub serves), a page per viewport that records every script
 * error and CSP violation, and small waits that poll the page's state, never the clock.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from './hub';

// Functions handed to page.evaluate run in the page; this compiler has no DOM types.
declare const document: any;

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function buildConsole(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(ROOT, 'scripts/build-console.js')], (err, stdout, stderr) => (err ? reject(new Error(`console build failed:\n${stdout}${stderr}`)) : resolve()));
  });
}

export interface ConsolePage {
  page: Page;
  /** Uncaught page errors and console errors (a CSP violation is one). */
  problems: string[];
  close(): Promise<void>;
}

/** Opens `/console/` at a viewport and waits until the profile list has loaded (or said why not). */
export async function openConsole(browser: Browser, hubUrl: string, viewport = DESKTOP): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  // A failed wait names its selector well inside jest's own bound.
  page.setDefaultTimeout(8000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  const res = await page.goto(`${hubUrl}/console/`);
  if (!res || res.status() !== 200) throw new Error(`GET /console/ answered ${res?.status()}`);
  await page.waitForFunction(() => (document.getElementById('profile-note')?.textContent ?? '').length > 0 && !/Loading/.test(document.getElementById('profile-note')!.textContent!));
  return { page, problems, close: () => context.close() };
}

/** Fills the Ask form with an inline chart and a question (profile: the one selected, the hub's default). */
export async function fillAsk(page: Page, chart: string, question: string): Promise<void> {
  await page.fill('#chart', chart);
  await page.fill('#patient', '');
  await page.fill('#question', question);
}

/** The staged event names the page has shown, in order. */
export function shownEvents(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid="events"] li', (items) => items.map((li) => li.getAttribute('data-event') ?? ''));
}

export function turnState(page: Page): Promise<string | null> {
  return page.getAttribute('[data-testid="turn-status"]', 'data-state');
}

/** Polls a condition in this process (router or hub state) until it holds; bounded by attempts. */
export async function until(cond: () => boolean, what: string, attempts = 500): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not reached: ${what}`);
}
