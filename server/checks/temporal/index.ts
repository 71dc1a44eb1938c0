/** Temporal checks: `temporal_facts` computed from the chart and one reference date, and the Answer and In-Depth gates that hold dates, values and trends to them. */
export { anchorSettingFor, resolveReferenceDate } from './anchor';
export { parseEvents } from './parse';
export { buildTemporalFacts } from './facts';
export { buildTemporalFactsInSlices, parseEventsInSlices } from './facts-slices';
export { renderTemporalFacts, temporalFactsSummary } from './render';
export { applyTemporalGate, runTemporalGate, temporalGateSteps } from './gate';
export { inDepthGateSteps, type InDepthGateResult, type InDepthMark } from './indepth-gate';
export { formatValue } from './gate-common';
export type { SeriesPoint, TemporalFacts, TemporalGateResult } from './types';
