/** One way to write a record (§5.1, §5.4): a merged ledger (no original text) writes the lines a single-source one does. */
import { mergeLedgers } from '../../../server/context/registry';
import { renderLedger, renderRecordLine } from '../../../server/context/render';
import { toLedger } from '../../../server/context/sources/querystore/serialize';
import type { EvidenceLedger, EvidenceRecord } from '../../../server/context/types';

const kb: EvidenceRecord = {
  stableId: 'knowledge-base:who-1', source: 'knowledge-base', sourcePriority: 20, resourceType: 'KnowledgeReference', resourceUuid: 'who-1',
  date: null, text: 'WHO guidance: test viral load at 6 months (source: WHO)', mandatory: false, metadata: {}, raw: {},
};

describe('renderLedger', () => {
  test('a QueryStore ledger merged with another source keeps clinical dates, groups and date-kind markers', () => {
    const qs = toLedger([
      { resourceType: 'obs', resourceUuid: 'u1', date: '2026-03-03', clinicalDate: '2026-03-02', dateKind: 'clinical_event', text: 'Weight (kg): 71.0 kg', metadata: { obs_group_uuid: 'g', obs_group_concept_name: 'Vitals' } },
      { resourceType: 'patient', resourceUuid: 'u2', date: '2025-09-09', clinicalDate: null, dateKind: 'administrative', text: 'Patient: Test', metadata: {} },
    ]);
    const kbLedger: EvidenceLedger = { records: [kb], originalText: '', preamble: '', sources: ['knowledge-base'] };
    const merged = mergeLedgers([{ name: 'querystore', ledger: qs }, { name: 'knowledge-base', ledger: kbLedger }]);
    expect(merged.originalText).toBe('');
    expect(renderLedger(merged)).toBe(`${qs.originalText}[3] KnowledgeReference (source: knowledge-base): ${kb.text}\n`);
    expect(renderLedger(merged).split('\n').slice(0, 2)).toEqual(['[1] (2026-03-02) Weight (kg): 71 kg (part of: Vitals)', '[2] (2025-09-09) Patient: Test [administrative]']);
  });

  test.each([
    ['inline, dated', { date: '2026-01-01' }, '[4] (2026-01-01) Allergy: Penicillin'],
    ['inline, undated', { date: null }, '[4] Allergy: Penicillin'],
    ['unknown date kind', { date: '2026-01-01', clinicalDate: null, dateKind: 'unknown' as const }, '[4] (2026-01-01) Allergy: Penicillin [unknown]'],
    ['no date, no marker', { date: null, clinicalDate: null, dateKind: 'administrative' as const }, '[4] Allergy: Penicillin'],
  ])('renderRecordLine: %s', (_name, fields, line) => {
    const record: EvidenceRecord = { stableId: 'x', source: 'inline', sourcePriority: 10, resourceType: 'ChartRecord', resourceUuid: null, text: 'Allergy: Penicillin', mandatory: true, metadata: {}, raw: {}, ...fields };
    expect(renderRecordLine(record, 4)).toBe(line);
  });
});
