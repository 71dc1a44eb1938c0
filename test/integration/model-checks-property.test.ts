/**
 * Property: no path makes an Answer `checked` (or `edited`) while any of its references is
 * contradicted, unchecked or mixed by a contradiction — over randomised scripted reviewer and checker
 * replies, including malformed JSON, missing pairs and failed calls. And review only labels: the
 * shown Answer is always the writer's text.
 */
import { CLEAN_REVIEW, MARK, askedPairs, scriptChecked, type Fact } from '../support/checkers';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { postJson, SMALL_CHART, useRouterAndHub } from '../support/hub';

/** Sentences the deterministic gates leave alone, each citing one record. */
const POOL = [
  'The latest weight is 71 kg [2].',
  'An earlier weight was 74 kg [3].',
  'A penicillin allergy with rash is documented [5].',
  'The patient was seen at Clinic A [1].',
  'A return visit date of 2026-04-01 is recorded [4].',
  'Weight and allergy records are both present [2][5].',
];
const PROFILES = ['single-12b-checked', 'single-12b-verify', 'single-12b-agree'];
const RUNS = 60;
const FAIL = { status: 500, errorBody: { error: { code: 500, message: 'checker down', type: 'server_error' } } };

function lcg(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

function randomFacts(rand: () => number, statement: string): Fact[] {
  const r = rand();
  if (r < 0.55) return [{ fact: statement, status: 'found', source_says: '' }];
  if (r < 0.7) return [{ fact: statement, status: 'differs', source_says: 'something else' }];
  if (r < 0.85) return [{ fact: statement, status: 'not_found', source_says: '' }];
  return [{ fact: statement, status: 'maybe' as Fact['status'], source_says: '' }]; // malformed entry
}

/** A fact-check reply: usually well formed, sometimes prose, sometimes missing a pair. */
function randomChecker(rand: () => number): (req: any) => string {
  return (req) => {
    const r = rand();
    if (r < 0.1) return 'I cannot check these.';
    const pairs = askedPairs(req).map((p) => ({ pair: p.pair, facts: randomFacts(rand, p.statement) }));
    return JSON.stringify({ pairs: r < 0.2 ? pairs.slice(1) : pairs });
  };
}

function randomReview(rand: () => number, answer: string): (req: any) => string {
  return (req) => {
    const r = rand();
    const folded = askedPairs(req).map((p) => ({ pair: p.pair, facts: randomFacts(rand, p.statement) }));
    if (r < 0.15) return '{"answer_ok": tru';
    if (r < 0.3) return JSON.stringify({ answer_ok: false, errors: [{ wrong: answer.slice(4, 24), chart: '[2] (2026-03-02) Finding — Weight (kg): 71 kg', fix: 'check it' }], corrected_answer: 'never shown', pairs: folded });
    if (r < 0.4) return JSON.stringify({ answer_ok: false, errors: [{ wrong: answer.slice(4, 24), chart: 'no quote', fix: 'x' }] });
    return rand() < 0.5 ? JSON.stringify({ ...JSON.parse(CLEAN_REVIEW), pairs: folded }) : CLEAN_REVIEW;
  };
}

describe('model checks never show an unchecked claim as checked', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen3.5-9b'], env: { HUB_ANCHOR: '2026-03-10' } });

  test(`${RUNS} randomised turns: checked/edited only with every Answer reference supported (or merely not addressed)`, async () => {
    const rand = lcg(20261129);
    const seen = new Set<string>();
    for (let run = 0; run < RUNS; run++) {
      ctx.router.reset();
      const sentences = POOL.filter(() => rand() < 0.5);
      if (sentences.length === 0) sentences.push(pick(rand, POOL));
      const answer = sentences.join(' ');
      const fail = () => rand() < 0.12;
      ctx.router.script({ match: { contains: MARK.grounding, test: fail }, ...FAIL }, { match: { contains: MARK.answerReview, test: fail }, ...FAIL });
      scriptChecked(ctx.router, {
        answer,
        claims: ['The latest weight is 71 kg [2].'],
        review: { reply: randomReview(rand, answer) },
        grounding: { reply: randomChecker(rand) },
        agreement: { reply: randomChecker(rand) },
        second: { content: JSON.stringify({ answer: 'Weight 71 kg [2]; penicillin allergy [5].', citations: [2, 5], blocks: [] }) },
      });
      const model = pick(rand, PROFILES);
      const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model, stream: true, messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Summarise weight and allergies.' }] });
      expect(res.status).toBe(200);
      const parsed = parseChartSearchStream(await res.text());
      expect(parsed.settled).toEqual([]);
      // The Answer side is settled at answer_validation (before In-Depth checks merge into shared references).
      const env = parsed.events.find((e) => e.name === 'answer_validation')!.data as Record<string, any>;
      const done = parsed.events.at(-1)!.data as Record<string, any>;
      const where = `run ${run} (${model}): ${answer}`;
      const status = env.answerValidation.status;
      seen.add(status);
      expect([where, done.answerValidation]).toEqual([where, env.answerValidation]);
      expect([where, done.answer]).toEqual([where, answer]);
      expect({ where, answer: env.answer }).toEqual({ where, answer });
      const answerRefs = env.references.filter((r: any) => r.usage.some((u: any) => u.location === 'answer' || u.location === 'block'));
      const answerSupport = (r: any) => r.groundingChecks.filter((c: any) => c.location === 'answer').map((c: any) => c.support);
      if (status === 'checked' || status === 'edited') {
        for (const ref of answerRefs) {
          expect({ where, index: ref.index, resolution: ref.resolutionStatus }).toEqual({ where, index: ref.index, resolution: 'resolved' });
          expect({ where, index: ref.index, bad: answerSupport(ref).filter((s: string) => s === 'contradicted' || s === 'unchecked') }).toEqual({ where, index: ref.index, bad: [] });
          expect([where, ['verified', 'mixed'].includes(ref.groundingStatus)]).toEqual([where, true]);
          if (ref.groundingStatus === 'mixed') expect([where, ref.support]).toEqual([where, 'not_addressed']);
        }
        expect([where, env.answerValidation.issues.filter((i: any) => ['citation_grounding', 'citation_grounding_unavailable', 'answer_review_unavailable', 'answer_review'].includes(i.id))]).toEqual([where, []]);
      }
      if (answerRefs.some((r: any) => answerSupport(r).includes('contradicted'))) expect([where, status]).toEqual([where, 'needs_review']);
      else if (answerRefs.some((r: any) => answerSupport(r).includes('unchecked'))) expect([where, ['unavailable', 'needs_review'].includes(status)]).toEqual([where, true]);
      expect(JSON.stringify(done)).not.toContain('never shown');
    }
    // The random replies reached every settled status, so the property was exercised, not skipped.
    expect([...seen].sort()).toEqual(['checked', 'needs_review', 'unavailable']);
  }, 60_000);
});
