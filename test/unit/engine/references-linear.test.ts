/**
 * A querystore record's `[administrative]` / `[unknown]` date-kind marker is removed in linear time:
 * the pattern began `\s*\[`, retried from every position of a long blank run (quadratic, ≈1.3 s at
 * 50,000 characters). The results are the former ones.
 */
import { resolveReferences } from '../../../server/engine/references';
import type { EvidenceLedger } from '../../../server/context/types';
import { RUN_ROWS } from '../../support/blank-runs';

function sourceText(text: string): string | undefined {
  const ledger: EvidenceLedger = {
    records: [{ stableId: 'querystore:1', source: 'querystore', sourcePriority: 1, resourceType: 'Encounter', resourceUuid: null, date: null, text, mandatory: false, metadata: {}, raw: {} }],
    originalText: '',
    preamble: '',
    sources: ['querystore'],
  };
  return resolveReferences(new Map([[1, []]]), ledger, 'checking')[0].sourceText;
}

describe.each(RUN_ROWS)('the date-kind marker with 50,000 %s', (_name, { run }) => {
  test.each<[string, string, string]>([
    ['runs before and after the marker at the end', `Visit: clinic${run}[administrative]${run}`, 'Visit: clinic'],
    ['a run before the marker', `Visit: clinic${run}[unknown]`, 'Visit: clinic'],
    ['a marker not at the end stays (rejecting suffix)', `Visit: clinic${run}[administrative] x`, `Visit: clinic${run}[administrative] x`],
    ['a run before a `[` that is no marker', `Visit${run}[x`, `Visit${run}[x`],
    ['a run at the start, before the marker', `${run}[unknown]`, ''],
  ])('%s', (_case, text, expected) => {
    expect(sourceText(text)).toBe(expected);
  });
});
