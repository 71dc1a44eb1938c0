/**
 * Headless Chromium for browser tests: Debian's chromium (installed by .ci/run when missing) driven by
 * playwright-core, never a browser Playwright downloads. The flags keep it off the network this machine
 * closes (background fetches, component updates, sync). Each launch gets its own empty profile from
 * playwright itself (a temporary user data dir it removes on close: `launch` refuses `--user-data-dir`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where browser tests leave screenshots for people to look at (gitignored). */
export const ARTEFACTS_DIR = path.resolve(__dirname, '../../test-artefacts');

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { browser, close: () => browser.close() };
}

/** A screenshot path under ARTEFACTS_DIR/<group>/, the folder made if needed. */
export function artefactPath(group: string, name: string): string {
  const dir = path.join(ARTEFACTS_DIR, group);
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
