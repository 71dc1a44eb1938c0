import { mergeLedgers, SourceRegistry } from '../../../server/context/registry';
import type { ContextSource } from '../../../server/context/source';
import { inlineSource } from '../../../server/context/sources/inline';
import type { EvidenceLedger, EvidenceRecord } from '../../../server/context/types';

const CHART = 'Patient records (most recent first):\n[1] (2026-01-01) Allergy: Penicillin\n[2] Finding — Weight (kg): 70 kg';
const rec = (stableId: string, source: string): EvidenceRecord => ({ stableId, source, sourcePriority: 50, resourceType: 'obs', resourceUuid: stableId, date: null, text: stableId, mandatory: false, metadata: {}, raw: {} });
const ledgerOf = (records: EvidenceRecord[]): EvidenceLedger => ({ records, originalText: '', preamble: '', sources: [] });

function patientSource(records: EvidenceRecord[]): ContextSource & { seen: unknown[] } {
  const seen: unknown[] = [];
  return { name: 'querystore', priority: 50, supportsPatient: true, seen, fetch: async (req) => (seen.push(req), ledgerOf(records)) };
}

import type { LedgerRequest } from '../../../server/context/registry';

const base: LedgerRequest = { messages: [{ role: 'user', content: 'What is the weight?' }], patient: null, context: null, supplementalSources: [], question: 'What is the weight?', hasInlineChart: false };

describe('SourceRegistry.selectPrimary (§5.2)', () => {
  const inlineOnly = new SourceRegistry([inlineSource({ maxChartRecords: 100 })]);
  const withPatient = new SourceRegistry([inlineSource({ maxChartRecords: 100 }), patientSource([])]);
  test.each<[string, SourceRegistry, Partial<LedgerRequest>, { primary?: string[]; explicit?: boolean; error?: [string, string] }]>([
    ['nothing asked: inline, implicit', inlineOnly, {}, { primary: ['inline'], explicit: false }],
    ['context.sources list', withPatient, { context: { sources: ['querystore', 'inline'] } }, { primary: ['querystore', 'inline'], explicit: true }],
    ['context.sources string', inlineOnly, { context: { sources: 'inline' } }, { primary: ['inline'], explicit: true }],
    ['context.source', inlineOnly, { context: { source: 'inline' } }, { primary: ['inline'], explicit: true }],
    ['context.sources of a wrong type', inlineOnly, { context: { sources: 42 } }, { error: ['context_source_unavailable', 'request'] }],
    ['patient with a patient source', withPatient, { patient: 'p-1' }, { primary: ['querystore'], explicit: false }],
    ['patient without a patient source but with an inline chart', inlineOnly, { patient: 'p-1', hasInlineChart: true }, { primary: ['inline'], explicit: false }],
    ['patient with neither', inlineOnly, { patient: 'p-1' }, { error: ['context_source_unavailable', 'auto'] }],
  ])('%s', (_name, registry, req, want) => {
    const run = () => registry.selectPrimary({ ...base, ...req } as never);
    if (want.error) {
      expect(run).toThrow(expect.objectContaining({ code: want.error[0], extra: expect.objectContaining({ source: want.error[1] }) }));
    } else {
      expect(run()).toEqual({ primary: want.primary, explicit: want.explicit });
    }
  });
});

describe('SourceRegistry.buildLedger', () => {
  test('inline works without any patient source and keeps the chart text', async () => {
    const registry = new SourceRegistry([inlineSource({ maxChartRecords: 100 })]);
    const ledger = await registry.buildLedger({ ...base, messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'q' }], hasInlineChart: true });
    expect(ledger.records.map((r) => [r.stableId, r.mandatory])).toEqual([['inline:1', true], ['inline:2', false]]);
    expect(ledger.sources).toEqual(['inline']);
  });

  test('no chart and nothing asked: an empty ledger, not an error', async () => {
    const registry = new SourceRegistry([inlineSource({ maxChartRecords: 100 })]);
    expect((await registry.buildLedger(base)).records).toEqual([]);
  });

  test('inline asked for explicitly with no chart is an explicit error', async () => {
    const registry = new SourceRegistry([inlineSource({ maxChartRecords: 100 })]);
    await expect(registry.buildLedger({ ...base, context: { source: 'inline' } })).rejects.toMatchObject({ code: 'context_source_unavailable', extra: { source: 'inline' } });
  });

  test('unknown source names are refused', async () => {
    const registry = new SourceRegistry([inlineSource({ maxChartRecords: 100 })]);
    await expect(registry.buildLedger({ ...base, context: { sources: ['querystore'] } })).rejects.toMatchObject({ code: 'context_source_unavailable', extra: { source: 'querystore' } });
    await expect(registry.buildLedger({ ...base, supplementalSources: ['knowledge-base'] })).rejects.toMatchObject({ extra: { source: 'knowledge-base' } });
  });

  test('sources compose in order, a supplemental source receives the primary ledger, duplicates fail', async () => {
    const qs = patientSource([rec('querystore:obs:1', 'querystore')]);
    const seenPrimary: EvidenceLedger[] = [];
    const kb: ContextSource = { name: 'knowledge-base', priority: 20, supportsPatient: false, fetch: async (req) => (seenPrimary.push(req.primaryLedger!), ledgerOf([rec('knowledge-base:a', 'knowledge-base')])) };
    const registry = new SourceRegistry([inlineSource({ maxChartRecords: 100 }), qs, kb]);
    const ledger = await registry.buildLedger({ ...base, patient: 'p-1', supplementalSources: ['knowledge-base'] });
    expect(ledger.records.map((r) => r.stableId)).toEqual(['querystore:obs:1', 'knowledge-base:a']);
    expect(ledger.sources).toEqual(['querystore', 'knowledge-base']);
    expect(ledger.originalText).toBe('');
    expect(seenPrimary[0].records.map((r) => r.stableId)).toEqual(['querystore:obs:1']);
    expect(() => mergeLedgers([{ name: 'a', ledger: ledgerOf([rec('x', 'a')]) }, { name: 'b', ledger: ledgerOf([rec('x', 'b')]) }])).toThrow(
      expect.objectContaining({ code: 'context_source_failed', extra: expect.objectContaining({ source: 'registry' }) }),
    );
  });
});
