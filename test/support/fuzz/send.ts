/** Sending fuzz cases to a hub, and what each one cost (shared by the fuzz suite and the hostile-load benchmark). */
import { request } from 'undici';
import type { Outcome } from './check-response';
import type { Category, FuzzCase } from './hostile-bodies';
import { planName } from './model-output';

/** Posts one case to `${hubUrl}/v1/chat/completions` and reads the whole answer; rejects on a network error or the timeout. */
export async function sendCase(hubUrl: string, c: FuzzCase, timeoutMs: number): Promise<Outcome> {
  const req = c.build();
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (req.contentType !== null) headers['content-type'] = req.contentType;
  const t0 = performance.now();
  // undici.request (lighter than fetch, which matters over two thousand calls) adds no content-type of its own.
  const res = await request(`${hubUrl}/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8'),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.body.text();
  const contentType = res.headers['content-type'];
  return { status: res.statusCode, contentType: typeof contentType === 'string' ? contentType : '', text, ms: Math.round(performance.now() - t0) };
}

/** A case in one line for logs: id, category, the model-output plan the fake router answers it with, its note. */
export function caseLabel(c: FuzzCase, noteChars = 70): string {
  return `${c.id} [${c.category}] plan ${planName(c.plan)}: ${c.note.slice(0, noteChars)}`;
}

/** What each case cost, client-side (request sent → whole answer read). */
export class CaseCosts {
  private readonly rows: Array<{ c: FuzzCase; ms: number }> = [];

  add(c: FuzzCase, ms: number): void {
    this.rows.push({ c, ms });
  }

  get count(): number {
    return this.rows.length;
  }

  /** The `n` slowest cases, slowest first, each with its category and model-output plan. */
  slowest(n: number): Array<{ id: number; category: Category; plan: string; ms: number }> {
    return [...this.rows]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, n)
      .map(({ c, ms }) => ({ id: c.id, category: c.category, plan: planName(c.plan), ms }));
  }

  /** e.g. `case 1203 [sse_output_injection] 1834 ms (plan answer=blank_lines)`, comma-separated. */
  formatSlowest(n: number): string {
    return this.slowest(n)
      .map((s) => `case ${s.id} [${s.category}] ${s.ms} ms (plan ${s.plan})`)
      .join(', ');
  }

  /** Per category: cases, and the slowest case's ms (`wrong_type=500 (max 35 ms)`), in first-seen order. */
  formatByCategory(): string {
    const by = new Map<string, { n: number; max: number }>();
    for (const { c, ms } of this.rows) {
      const e = by.get(c.category) ?? { n: 0, max: 0 };
      by.set(c.category, { n: e.n + 1, max: Math.max(e.max, ms) });
    }
    return [...by].map(([k, e]) => `${k}=${e.n} (max ${e.max} ms)`).join(', ');
  }
}
