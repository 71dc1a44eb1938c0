/**
 * The JS side of the conformance protocol (clients/conformance/PROTOCOL.md): performs one case's `op`
 * through the client's public API and reports what it saw. HTTP failures are observations, not throws;
 * anything else thrown means the runner (or the client) broke.
 */
import type { ConformanceCase, ErrorObservation, Observation } from '../conformance/case';
import { APIError, HubClientError, InsufficientContextError, MedAgentHub, type ChatRequest, type ProductEnvelope } from './src/index.js';

export async function runCase(hubUrl: string, testCase: ConformanceCase): Promise<Observation> {
  const hub = new MedAgentHub({ baseURL: hubUrl, apiKey: testCase.client?.apiKey });
  try {
    return await perform(hub, testCase.op);
  } catch (err) {
    if (err instanceof HubClientError) return { ok: false, error: errorObservation(err) };
    throw err;
  }
}

async function perform(hub: MedAgentHub, op: ConformanceCase['op']): Promise<Observation> {
  switch (op.kind) {
    case 'models':
      return { ok: true, models: (await hub.models()).data.map((m) => m.id) };
    case 'ask': {
      const result = await hub.ask(op.body as unknown as ChatRequest);
      const envelope = result.envelope;
      return {
        ok: true,
        answer: envelope.answer,
        citations: envelope.citations,
        references: (envelope.references ?? []).map((r) => r.index),
        validation: envelope.answerValidation?.status ?? null,
        inDepth: result.type === 'product' ? (result.envelope.inDepth?.status ?? null) : null,
      };
    }
    case 'stream':
    case 'abort':
      return streamCase(hub, op.body as unknown as ChatRequest, op.kind === 'abort', op.breakAfter);
  }
}

/** `stream` leaves the loop with `break` after `breakAfter`; `abort` aborts the signal it passed instead. */
async function streamCase(hub: MedAgentHub, body: ChatRequest, abort: boolean, breakAfter: string | undefined): Promise<Observation> {
  const controller = new AbortController();
  const stream = await hub.stream(body, { signal: controller.signal });
  const events: string[] = [];
  let last: ProductEnvelope | null = null;
  try {
    for await (const event of stream) {
      events.push(event.name);
      if (event.name !== 'error') last = event.data;
      if (event.name === breakAfter) {
        if (!abort) break;
        controller.abort();
      }
    }
  } catch (err) {
    // The loop's next read rejects with the abort this runner asked for; that is the expected end.
    if (!(abort && controller.signal.aborted)) throw err;
  }
  const observation: Observation = {
    ok: true,
    events,
    answer: last?.answer ?? null,
    validation: last?.answerValidation?.status ?? null,
    inDepth: last?.inDepth?.status ?? null,
  };
  const errorEvent = stream.errorEvent;
  if (errorEvent) observation.errorEvent = { code: errorEvent.code, source: errorEvent.source };
  return observation;
}

function errorObservation(err: HubClientError): ErrorObservation {
  if (!(err instanceof APIError)) return { kind: err.kind, message: err.message };
  const out: ErrorObservation = { kind: err.kind, status: err.status, code: err.code };
  if (err instanceof InsufficientContextError) out.detail = err.detail;
  return out;
}
