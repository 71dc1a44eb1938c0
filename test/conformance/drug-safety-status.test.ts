/**
 * Conformance family `drug_safety_status` (hub-contract §9.6, §12): a source package present or not,
 * and whether mapping, exposure and execution were complete, decide `checked` / `limited` /
 * `unavailable`. Each case runs twice: through the status rule, and through the service over an
 * exposure built to match the case's flags (the approved fixture package stands for the reviewed one).
 */
import * as fs from 'fs';
import * as path from 'path';
import { createDrugSafety } from '../../server/checks/drug-safety';
import { deriveStatus } from '../../server/checks/drug-safety/result';
import type { ExposureRecord } from '../../server/checks/drug-safety/exposure';

const FIXTURE = path.resolve(__dirname, '../../../shared/conformance/dual-provider-conformance.v1.json');
const APPROVED = path.resolve(__dirname, '../fixtures/drug-safety/approved-package.json');

interface StatusCase {
  id: string;
  source_package: string | null;
  mapping_complete: boolean;
  exposure_complete: boolean;
  execution_complete: boolean;
  expected_status: 'checked' | 'limited' | 'unavailable';
}

const cases = (JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { drug_safety_status: StatusCase[] }).drug_safety_status;

function record(resourceType: string, metadata: Record<string, unknown>): ExposureRecord {
  return { source: 'querystore', resourceType, date: '2026-03-01', text: 'x', raw: { resourceType, metadata, date: '2026-03-01' } };
}

/** Records that make the exposure complete (structured) or not (an inline line), mapped or not. */
function recordsFor(c: StatusCase): ExposureRecord[] {
  const out = [record('patient', { age_years: 40 }), record('drug_order', { drug_name: 'Warfarin 5 mg' })];
  if (!c.mapping_complete) out.push(record('drug_order', { drug_name: 'Nevirapine 200 mg' }));
  if (!c.exposure_complete) out.push({ source: 'inline', resourceType: 'ChartRecord', date: null, text: 'Allergy: latex', raw: {} });
  return out;
}

describe('conformance: drug_safety_status', () => {
  test('the family is present', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
  });

  test.each(cases.map((c) => [c.id, c] as const))('%s: the status rule', (_id, c) => {
    const status = deriveStatus({
      packageState: c.source_package === null ? 'absent' : 'approved',
      exposure: c.exposure_complete ? 'complete' : 'partial',
      mappingComplete: c.mapping_complete,
      executionComplete: c.execution_complete,
      checksComplete: true,
    });
    expect(status).toBe(c.expected_status);
  });

  test.each(cases.map((c) => [c.id, c] as const))('%s: through the service', (_id, c) => {
    const service = createDrugSafety({
      format: 'json',
      datasetPath: c.source_package === null ? path.join(__dirname, 'no-such-package.json') : APPROVED,
      crossReactivityPath: null,
      minInteractionSeverity: 'minor',
      weightConceptUuid: null,
      weightMaxAgeDays: 90,
    });
    const prepared = service.prepare({ records: recordsFor(c), preamble: '', question: 'Can I add ibuprofen?', referenceDate: '2026-03-10' });
    // A failed execution is a check that never produced its outcome.
    const result = c.execution_complete ? service.check(prepared, 'Ibuprofen is not advised.') : service.notRun(prepared, { id: 'check_failed', reason: 'test' });
    expect(result.status).toBe(c.expected_status);
    expect(result.schema_version).toBe('drug_safety.v1');
    if (c.source_package !== null && c.execution_complete) {
      expect(result.coverage).toMatchObject({ mapping_complete: c.mapping_complete, exposure_complete: c.exposure_complete, execution_complete: true });
    }
    if (c.source_package === null) expect(result.package).toBeNull();
  });
});
