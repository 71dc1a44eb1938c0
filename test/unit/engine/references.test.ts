import { citationsFromReferences, groundingFromChecks, mergeReferences, type Reference } from '../../../server/answer/references';
import { answerUsages, claimUsages, draftChanged, resolutionIssues, resolveReferences, splitSentences } from '../../../server/engine/references';
import { parseChart } from '../../../server/context/inline-chart';
import type { EvidenceLedger, EvidenceRecord } from '../../../server/context/types';
import type { TableBlock } from '../../../server/answer/types';

// The §3.7 chart: five inline records, newest first.
const CHART = [
  '[1] (2026-03-10) Encounter: routine follow-up',
  '[2] (2026-03-02) Finding — Weight (kg): 71 kg',
  '[3] (2026-01-10) Finding — Weight (kg): 74 kg',
  '[4] (2025-12-15) Medication: lisinopril 10 mg',
  '[5] (2025-12-01) Allergy: Penicillin. Reaction: rash',
].join('\n');
const inline = (): EvidenceLedger => parseChart(CHART, { maxRecords: 100 });

function record(over: Partial<EvidenceRecord>): EvidenceRecord {
  return {
    stableId: 'x:1', source: 'x', sourcePriority: 10, resourceType: 'Thing', resourceUuid: null, date: null,
    text: 'text', mandatory: false, metadata: {}, raw: {}, ...over,
  };
}
const ledgerOf = (...records: EvidenceRecord[]): EvidenceLedger => ({ records, originalText: '', preamble: '', sources: [] });

function table(rows: Array<Record<string, { text: string; refs: number[] }>>): TableBlock {
  return { kind: 'table', title: 'Weights', columns: [{ key: 'date', label: 'Date' }, { key: 'weight', label: 'Weight' }], rows: rows.map((cells) => ({ cells })) };
}
const draft = (answer: string, citations: number[] = [], blocks: TableBlock[] = []) => ({ answer, citations, blocks });
const keys = (m: Map<number, unknown>) => [...m.keys()];

describe('§3.7 example', () => {
  const answer = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
  const claims = ['The most recent weight, 71 kg, was recorded at the 2026-03-02 visit [2].', 'A penicillin allergy with rash is documented [5].'];

  test('answer references follow inline order with the sentence as usage and dated titles', () => {
    const refs = resolveReferences(answerUsages(draft(answer, [3, 2]), 'answer'), inline(), 'checking');
    expect(refs.map((r) => r.index)).toEqual([3, 2]);
    expect(refs[0]).toEqual({
      index: 3, sourceId: 'inline:3', source: 'inline', resourceType: 'ChartRecord', resourceUuid: null, date: '2026-01-10',
      title: '(2026-01-10) Finding — Weight (kg): 74 kg', sourceText: '(2026-01-10) Finding — Weight (kg): 74 kg', provenance: {},
      resolutionStatus: 'resolved', usage: [{ location: 'answer', text: answer }], groundingStatus: 'checking', grounded: null,
    });
    expect(refs[1].title).toBe('(2026-03-02) Finding — Weight (kg): 71 kg');
  });

  test('In-Depth references merge after the Answer ones; citations keep only Answer usage', () => {
    const ledger = inline();
    const a = resolveReferences(answerUsages(draft(answer, [3, 2]), 'answer'), ledger, 'checking');
    const b = resolveReferences(claimUsages(claims, 'indepth'), ledger, 'checking');
    const merged = mergeReferences(a, b);
    expect(merged.map((r) => r.index)).toEqual([3, 2, 5]);
    expect(merged[1].usage).toEqual([{ location: 'answer', text: answer }, { location: 'indepth', text: claims[0] }]);
    expect(merged[2].title).toBe('(2025-12-01) Allergy: Penicillin. Reaction: rash');
    expect(citationsFromReferences(merged)).toEqual([3, 2]);
    expect(a[1].usage).toHaveLength(1); // inputs untouched
  });

  test('review draft references are unchecked with the draft location', () => {
    const refs = resolveReferences(answerUsages(draft(answer, [2, 3]), 'answer_review_draft'), inline(), 'unchecked');
    expect(refs.map((r) => [r.index, r.groundingStatus, r.grounded, r.usage[0].location])).toEqual([
      [2, 'unchecked', null, 'answer_review_draft'],
      [3, 'unchecked', null, 'answer_review_draft'],
    ]);
    expect(citationsFromReferences(refs)).toEqual([]);
  });
});

describe('splitSentences', () => {
  test.each<[string, string, string[]]>([
    ['period, question and exclamation marks', 'A [1]. B? C! D', ['A [1].', 'B?', 'C!', 'D']],
    ['newlines', 'Line one [1]\nLine two', ['Line one [1]', 'Line two']],
    ['decimals and dates do not split', 'Weight 71.5 kg on 2026.01.10 [1].', ['Weight 71.5 kg on 2026.01.10 [1].']],
    ['no boundary: whole text', 'Just one claim [2]', ['Just one claim [2]']],
    ['a marker split off its sentence stays with it', 'Weight 71 kg. [2]\nNext.', ['Weight 71 kg. [2]', 'Next.']],
  ])('%s', (_name, text, want) => {
    expect(splitSentences(text)).toEqual(want);
  });
});

describe('answerUsages', () => {
  test.each<[string, string, number[], Array<[number, string]>]>([
    ['grouped markers', 'Weight fell [2, 3]. Stable since.', [], [[2, 'Weight fell [2, 3].'], [3, 'Weight fell [2, 3].']]],
    ['adjacent markers', 'Weight fell [2][3]. Stable.', [], [[2, 'Weight fell [2][3].'], [3, 'Weight fell [2][3].']]],
    ['an index in two sentences joins them', 'A is 1 [1]. B is 2 [2]. C is 3 [1].', [], [[1, 'A is 1 [1]. C is 3 [1].'], [2, 'B is 2 [2].']]],
    ['structured-only citation uses the whole answer', 'No marker here. At all.', [4], [[4, 'No marker here. At all.']]],
    ['bracketed prose is not a marker', 'Visit [administrative] noted [1].', [], [[1, 'Visit [administrative] noted [1].']]],
  ])('%s', (_name, answer, citations, want) => {
    const usages = answerUsages(draft(answer, citations), 'answer');
    expect([...usages].map(([i, u]) => [i, u.map((x) => x.text).join(' | ')])).toEqual(want);
    for (const list of usages.values()) expect(list.every((u) => u.location === 'answer')).toBe(true);
  });

  test('order: structured citations, then table refs, then inline markers, deduplicated', () => {
    const block = table([{ date: { text: '2026-01-10', refs: [6] }, weight: { text: '74 kg', refs: [6, 7] } }]);
    expect(keys(answerUsages(draft('A [1]. B [7]. C [5].', [5, 9], [block]), 'answer'))).toEqual([5, 9, 6, 7, 1]);
  });

  test('table cells carry path and cell text; a marker in prose adds an answer usage', () => {
    const block = table([
      { date: { text: '2026-03-02', refs: [2] }, weight: { text: '71 kg', refs: [2] } },
      { date: { text: '2026-01-10', refs: [3] }, weight: { text: '74 kg', refs: [3] } },
    ]);
    const usages = answerUsages(draft('Weight fell [3].', [], [block]), 'answer');
    expect(keys(usages)).toEqual([2, 3]);
    expect(usages.get(2)).toEqual([
      { location: 'block', text: '2026-03-02', path: 'blocks[0].rows[0].cells.date' },
      { location: 'block', text: '71 kg', path: 'blocks[0].rows[0].cells.weight' },
    ]);
    expect(usages.get(3)).toEqual([
      { location: 'answer', text: 'Weight fell [3].' },
      { location: 'block', text: '2026-01-10', path: 'blocks[0].rows[1].cells.date' },
      { location: 'block', text: '74 kg', path: 'blocks[0].rows[1].cells.weight' },
    ]);
    const review = answerUsages(draft('x', [], [block]), 'answer_review_draft');
    expect(review.get(2)?.[0]).toEqual({ location: 'answer_review_draft', text: '2026-03-02', path: 'blocks[0].rows[0].cells.date' });
  });
});

test('claimUsages: one usage per claim, review location kept', () => {
  const usages = claimUsages(['First [1][2].', 'Second [2]. Unrelated.', 'Uncited.'], 'indepth_review_draft');
  expect([...usages]).toEqual([
    [1, [{ location: 'indepth_review_draft', text: 'First [1][2].' }]],
    [2, [{ location: 'indepth_review_draft', text: 'First [1][2].' }, { location: 'indepth_review_draft', text: 'Second [2].' }]],
  ]);
});

describe('resolveReferences', () => {
  test('indices outside the complete ledger are unresolved, each with one blocking issue', () => {
    const refs = resolveReferences(answerUsages(draft('Zero [0]. Far [9]. Real [5].', []), 'answer'), inline(), 'checking');
    expect(refs.map((r) => [r.index, r.resolutionStatus])).toEqual([[0, 'unresolved'], [9, 'unresolved'], [5, 'resolved']]);
    expect(refs[1]).toEqual({ index: 9, resolutionStatus: 'unresolved', groundingStatus: 'unchecked', grounded: null, usage: [{ location: 'answer', text: 'Far [9].' }] });
    expect(resolutionIssues(refs)).toEqual([0, 9].map((i) => ({
      id: 'citation_resolution', status: 'fail', severity: 'block',
      reason: `Citation [${i}] cites a source outside the current evidence ledger.`, source_indices: [i],
    })));
    expect(citationsFromReferences(refs)).toEqual([0, 9, 5]);
  });

  test.each<[string, Partial<EvidenceRecord>, { title: string; sourceText: string; provenance: Record<string, string> }]>([
    ['knowledge: metadata title and provenance subset',
      { source: 'knowledge-base', resourceType: 'KnowledgeReference', text: 'WHO clinical staging of HIV.', metadata: { title: 'HIV WHO staging', authority: 'WHO', url: 'https://who.int/x', version: 3, license: '', extra: 'no' } },
      { title: 'HIV WHO staging', sourceText: 'WHO clinical staging of HIV.', provenance: { authority: 'WHO', url: 'https://who.int/x', version: '3' } }],
    ['querystore: date-kind marker stripped, no date prefix',
      { source: 'querystore', resourceType: 'obs', date: '2024-05-01', text: 'Program: HIV care enrolment [administrative]' },
      { title: 'Program: HIV care enrolment', sourceText: 'Program: HIV care enrolment', provenance: {} }],
    ['first line only, at most 120 chars',
      { text: `${'a'.repeat(130)}\nsecond line` },
      { title: 'a'.repeat(120), sourceText: `${'a'.repeat(130)}\nsecond line`, provenance: {} }],
    ['undated inline record has no prefix',
      { source: 'inline', resourceType: 'ChartRecord', text: 'Note: chart summary' },
      { title: 'Note: chart summary', sourceText: 'Note: chart summary', provenance: {} }],
  ])('%s', (_name, over, want) => {
    const [ref] = resolveReferences(new Map([[1, []]]), ledgerOf(record(over)), 'unchecked');
    expect({ title: ref.title, sourceText: ref.sourceText, provenance: ref.provenance }).toEqual(want);
    expect([ref.groundingStatus, ref.grounded]).toEqual(['unchecked', null]);
  });
});

describe('groundingFromChecks', () => {
  const s = (...v: string[]) => v.map((support) => ({ support }));
  const st = (...v: string[]) => v.map((status) => ({ status }));
  test.each<[string, unknown[], string, boolean | null]>([
    ['no checks', [], 'unchecked', null],
    ['decision 16: all supported', s('supported', 'supported'), 'verified', true],
    ['decision 16: contradicted alone', s('contradicted', 'not_addressed'), 'unsupported', false],
    ['decision 16: contradicted beside supported', s('contradicted', 'supported'), 'mixed', null],
    ['decision 16: unchecked', s('supported', 'unchecked'), 'unchecked', null],
    ['decision 16: not_addressed', s('supported', 'not_addressed'), 'mixed', null],
    ['§7.5: all verified', st('verified'), 'verified', true],
    ['§7.5: all unsupported', st('unsupported', 'unsupported'), 'unsupported', false],
    ['§7.5: any unchecked', st('verified', 'unchecked'), 'unchecked', null],
    ['§7.5: verified and unsupported', st('verified', 'unsupported'), 'mixed', null],
    ['an unknown status beside a support value is unchecked', [...s('supported'), ...st('constructor')], 'unchecked', null],
  ])('%s', (_name, checks, status, grounded) => {
    expect(groundingFromChecks(checks)).toMatchObject({ groundingStatus: status, grounded });
  });
});

describe('mergeReferences grounding', () => {
  const base = (over: Partial<Reference>): Reference => ({ index: 2, resolutionStatus: 'resolved', usage: [], groundingStatus: 'verified', grounded: true, ...over });

  test('checks concatenate, aggregate recomputed, scope widens to the union group', () => {
    const a = base({ usage: [{ location: 'answer', text: 'A' }], groundingChecks: [{ status: 'verified' }], groundingScope: 'source_set', groundingGroup: [2, 3] });
    const b = base({ usage: [{ location: 'indepth', text: 'B' }], groundingChecks: [{ status: 'unsupported' }], groundingScope: 'record' });
    const [m] = mergeReferences([a], [b]);
    expect(m).toMatchObject({ groundingStatus: 'mixed', grounded: null, groundingScope: 'source_set', groundingGroup: [2, 3] });
    expect(m.groundingChecks).toHaveLength(2);
  });

  test('a pending side keeps the merged reference checking; unresolved stays unchecked', () => {
    expect(mergeReferences([base({})], [base({ groundingStatus: 'checking', grounded: null })])[0]).toMatchObject({ groundingStatus: 'checking', grounded: null });
    const u: Reference = { index: 9, resolutionStatus: 'unresolved', groundingStatus: 'unchecked', grounded: null, usage: [{ location: 'answer', text: 'x' }] };
    const [m] = mergeReferences([u], [{ ...u, usage: [{ location: 'indepth', text: 'y' }] }]);
    expect(m).toEqual({ ...u, usage: [{ location: 'answer', text: 'x' }, { location: 'indepth', text: 'y' }] });
  });
});

describe('draftChanged', () => {
  const block = table([{ date: { text: '2026-01-10', refs: [3] }, weight: { text: '74 kg', refs: [3] } }]);
  const before = { answer: 'Weight fell [3][2].', citations: [2, 3], blocks: [block] as unknown[] };
  test.each<[string, Partial<typeof before>, boolean]>([
    ['re-ordered citations only (§13.1 #4)', { citations: [3, 2] }, false],
    ['identical', {}, false],
    ['same blocks, keys in another order', { blocks: [{ rows: block.rows, columns: block.columns, title: block.title, kind: 'table' }] }, false],
    ['text changed', { answer: 'Weight fell [3][2]. Stable.' }, true],
    ['citation set changed', { citations: [2, 3, 4] }, true],
    ['citation removed', { citations: [3] }, true],
    ['blocks changed', { blocks: [table([{ date: { text: '2026-01-10', refs: [3] }, weight: { text: '75 kg', refs: [3] } }])] }, true],
    ['blocks withheld', { blocks: [] }, true],
  ])('%s', (_name, over, want) => {
    expect(draftChanged(before, { ...before, ...over })).toBe(want);
  });
});
