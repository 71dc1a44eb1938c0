/**
 * Opens an eval report.html in Chromium from the file system with every network request refused and
 * counted (the report must be self-contained), waits until its script has drawn the charts, and saves
 * screenshots under test-artefacts/eval/.
 */
import { artefactPath, launchChromium } from './browser';

export interface RenderedReport { networkRequests: string[]; pageErrors: string[]; canvases: number; paintedCanvases: number; screenshot: string; turnsScreenshot: string }

export async function renderReport(htmlPath: string, screenshotName: string): Promise<RenderedReport> {
  const chromium = await launchChromium();
  try {
    const page = await chromium.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const networkRequests: string[] = [];
    const pageErrors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file://')) return route.continue();
      networkRequests.push(url);
      return route.abort();
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => { if (msg.type() === 'error') pageErrors.push(msg.text()); });
    await page.goto(`file://${htmlPath}`);
    await page.waitForSelector('body[data-charts="drawn"]', { timeout: 15_000 });
    // A drawn chart has non-blank pixels: count canvases whose bitmap holds any opaque pixel.
    // (A string: the page's DOM types are not in this project's compiler lib.)
    const counts = await page.evaluate<{ canvases: number; painted: number }>(`(() => {
      const canvases = [...document.querySelectorAll('canvas')];
      const painted = canvases.filter((c) => {
        const ctx = c.getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) return false;
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) return true;
        return false;
      });
      return { canvases: canvases.length, painted: painted.length };
    })()`);
    // The summary and charts (the first screen), then the turn table from its start (a whole page of
    // hundreds of turns would be a picture nobody opens).
    const screenshot = artefactPath('eval', `${screenshotName}.png`);
    await page.setViewportSize({ width: 1400, height: 1500 });
    await page.screenshot({ path: screenshot });
    const turns = artefactPath('eval', `${screenshotName}-turns.png`);
    await page.locator('#turn-0').scrollIntoViewIfNeeded();
    await page.screenshot({ path: turns });
    return { networkRequests, pageErrors, canvases: counts.canvases, paintedCanvases: counts.painted, screenshot, turnsScreenshot: turns };
  } finally {
    await chromium.close();
  }
}
