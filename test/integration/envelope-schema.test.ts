/**
 * The envelope schemas (server/answer/envelope-schema.ts) against the wire. Every test file's envelopes
 * are validated by the recorder (test/support/envelope-recorder-setup.ts); this file proves that the
 * recorder really sees staged events, blocking bodies and leg results of an in-process hub, that the
 * schemas refuse an unknown or a missing top-level key, and that /openapi.json carries them.
 */
import { FakeRouter } from '../support/fake-router';
import { postJson, SMALL_CHART, useRouterAndHub } from '../support/hub';
import { recordedEnvelopes } from '../support/envelope-recorder';
import { envelopeViolations } from '../support/envelope-validators';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { ENVELOPE_SCHEMAS } from '../../server/answer/envelope-schema';

const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'How has the weight changed?' }];

function script(router: FakeRouter): void {
  router.script(
    { match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: ['A penicillin allergy with rash is documented [5].'] }) },
    { content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }) },
  );
}

describe('envelope schemas on the wire', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });

  test('staged events, a blocking body and a leg result are recorded and conform', async () => {
    const before = recordedEnvelopes().counts;
    script(ctx.router);
    const streamed = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages, stream: true });
    const events = parseChartSearchStream(await streamed.text()).events;
    expect(events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);

    script(ctx.router);
    const blocking = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    const envelope = JSON.parse(((await blocking.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content);

    ctx.router.script({ content: JSON.stringify({ answer: 'Lisinopril 10 mg [1]', citations: [1], blocks: [] }) });
    const leg = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b@synthesis-chartsearchai', messages });
    expect(leg.status).toBe(200);

    const after = recordedEnvelopes();
    expect(after.counts.ProductEnvelope - before.ProductEnvelope).toBe(4);
    expect(after.counts.BlockingProductEnvelope - before.BlockingProductEnvelope).toBe(1);
    expect(after.counts.LegEnvelope - before.LegEnvelope).toBe(1);
    expect(after.violations).toEqual([]);

    // What the recorder saw is what the client read.
    for (const e of events) expect(envelopeViolations('ProductEnvelope', e.data)).toEqual([]);
    expect(envelopeViolations('BlockingProductEnvelope', envelope)).toEqual([]);
    expect(envelope.citations).toEqual([3, 2]);

    // An unknown top-level key, a dropped required one, and a staged envelope read as blocking all fail.
    expect(envelopeViolations('BlockingProductEnvelope', { ...envelope, leakedField: 1 })).toEqual(["/ must NOT have additional properties 'leakedField'"]);
    const { model: _model, ...withoutModel } = envelope;
    expect(envelopeViolations('BlockingProductEnvelope', withoutModel)).toEqual(["/ must have required property 'model'"]);
    expect(envelopeViolations('BlockingProductEnvelope', events[3].data)).toEqual(["/ must have required property 'citations'"]);
    expect(envelopeViolations('LegEnvelope', envelope).length).toBeGreaterThan(0);
  });

  test('/openapi.json carries the envelope schemas as components', async () => {
    const doc = (await (await fetch(`${ctx.hub.url}/openapi.json`)).json()) as { components: { schemas: Record<string, { required?: string[]; additionalProperties?: unknown }> } };
    for (const name of Object.keys(ENVELOPE_SCHEMAS)) expect(doc.components.schemas[name]).toMatchObject({ additionalProperties: false });
    expect(doc.components.schemas.ProductEnvelope.required).toEqual(expect.arrayContaining(['answer', 'references', 'blocks', 'confidence', 'safetyStatus']));
  });
});
