/** Constructors of the engine's events (the union is answer/events.ts, so lower floors can read it). */
import type { DoneEvent, ErrorEvent, ErrorEventData, ResultEvent, StagedEvent, StagedEventName, LegEnvelope, ProductEnvelope } from '../answer';
import { errorEventData, type HubError } from '../errors';

export function stagedEvent(name: StagedEventName, data: ProductEnvelope): StagedEvent {
  return { name, data };
}

export function doneEvent(data: ProductEnvelope): DoneEvent {
  return { name: 'done', data };
}

export function errorEvent(err: HubError): ErrorEvent {
  // errorEventData builds exactly {code, source, message} plus the detail fields ErrorEventData names.
  return { name: 'error', data: errorEventData(err) as ErrorEventData };
}

export function resultEvent(data: LegEnvelope): ResultEvent {
  return { name: 'result', data };
}
