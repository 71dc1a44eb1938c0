import { runContractGate } from '../../../server/checks/contracts';
import type { AnswerDraft, TableBlock } from '../../../server/answer/types';

// The gate stage hands the writer's raw blocks over as `blocks`; rawBlocks records them as sent.
const draft = (answer: string, declared: number[], blocks: unknown[] = []): AnswerDraft => ({
  answer,
  citations: [],
  declared,
  blocks: blocks as TableBlock[],
  rawBlocks: blocks,
  structured: true,
});
const cell = (text: string, refs: number[]) => ({ text, refs });
const COLUMNS = [
  { key: 'date', label: 'Date' },
  { key: 'weight', label: 'Weight' },
];
const flatWeights = {
  kind: 'table',
  title: 'Weights',
  columns: COLUMNS,
  rows: [
    { cells: { date: cell('2026-03-02', [2]) } },
    { cells: { weight: cell('71 kg', [2]) } },
    { cells: { date: cell('2026-01-10', [3]) } },
    { cells: { weight: cell('74 kg', [3]) } },
  ],
};
const reversedWeights = { ...flatWeights, rows: [flatWeights.rows[1], flatWeights.rows[0], flatWeights.rows[3], flatWeights.rows[2]] };

describe('runContractGate', () => {
  test('a clean draft passes untouched', () => {
    const block = { kind: 'table', title: 'W', columns: COLUMNS, rows: [{ cells: { date: cell('2026-03-02', [2]), weight: cell('71 kg', [2]) } }] };
    const got = runContractGate(draft('Weight is 71 kg [2].', [2], [block]));
    expect(got).toEqual({
      draft: { answer: 'Weight is 71 kg [2].', citations: [2], declared: [2], blocks: [block], rawBlocks: [block], structured: true },
      changed: false,
      issues: [],
      blocksWithheld: 0,
    });
  });

  test('grouped markers are canonicalised before the citation contract reads them', () => {
    const got = runContractGate(draft('Weight fell [3, 2, 3].', [2, 3, 9]));
    expect(got.draft.answer).toBe('Weight fell [3][2].');
    expect(got.draft.citations).toEqual([3, 2]);
    expect(got.draft.declared).toEqual([2, 3, 9]); // what the writer declared stays on record
    expect(got.changed).toBe(true);
    expect(got.issues).toEqual([]);
  });

  test('malformed markers fail closed with one citation_format issue and stay as written', () => {
    const got = runContractGate(draft('A [[2,3]]. B x[4,5]y.', []));
    expect(got.draft.answer).toBe('A [[2,3]]. B x[4,5]y.');
    expect(got.issues).toHaveLength(1);
    expect(got.issues[0]).toMatchObject({ id: 'citation_format', status: 'fail', severity: 'block', source_indices: [2, 3, 4, 5] });
  });

  test('alternating flat cells are repaired and their refs count as usage', () => {
    const got = runContractGate(draft('Weights are tabulated below.', [2, 3, 7], [flatWeights]));
    expect(got.draft.blocks).toHaveLength(1);
    expect(got.draft.blocks[0].rows).toEqual([
      { cells: { date: cell('2026-03-02', [2]), weight: cell('71 kg', [2]) } },
      { cells: { date: cell('2026-01-10', [3]), weight: cell('74 kg', [3]) } },
    ]);
    expect(got.draft.citations).toEqual([2, 3]);
    expect(got.draft.answer).toBe('Weights are tabulated below.');
    expect(got).toMatchObject({ changed: true, issues: [], blocksWithheld: 0 });
  });

  test('a repaired table alone is a change even when citations agree', () => {
    expect(runContractGate(draft('See table [2].', [2, 3], [flatWeights])).changed).toBe(true);
  });

  test('a reversed flat table is withheld, keeps its table_contract issue, and its refs are not usage', () => {
    const got = runContractGate(draft('Weight fell from 74 kg to 71 kg.', [2, 3], [reversedWeights]));
    expect(got.blocksWithheld).toBe(1);
    expect(got.draft.blocks).toEqual([]);
    expect(got.issues).toEqual([expect.objectContaining({ id: 'table_contract', status: 'fail', severity: 'block', source_indices: [2, 3] })]);
    // With the table gone, the declared set is scoped to the single-claim prose.
    expect(got.draft.answer).toBe('Weight fell from 74 kg to 71 kg [2][3].');
    expect(got.draft.citations).toEqual([2, 3]);
    expect(got.changed).toBe(true);
  });

  test('withheld table and two-claim prose report both issues, in gate order', () => {
    const got = runContractGate(draft('Weight fell. Height rose.', [2, 3], [{ kind: 'chart' }, reversedWeights]));
    expect(got.issues.map((i) => i.id)).toEqual(['table_contract', 'table_contract', 'citation_scope']);
    expect(got.issues[0].reason).toMatch(/blocks\[0\]/);
    expect(got.issues[1].reason).toMatch(/blocks\[1\]/);
    expect(got.blocksWithheld).toBe(2);
    expect(got.draft.answer).toBe('Weight fell. Height rose.');
  });

  test('valid tables survive next to withheld ones, in order', () => {
    const ok = { kind: 'table', title: 'OK', columns: [{ key: 'v', label: 'V' }], rows: [{ cells: { v: cell('x', [5]) } }] };
    const got = runContractGate(draft('See tables.', [], [reversedWeights, ok, flatWeights]));
    expect(got.draft.blocks.map((b) => b.title)).toEqual(['OK', 'Weights']);
    expect(got.draft.citations).toEqual([5, 2, 3]);
    expect(got.blocksWithheld).toBe(1);
  });

  test('no citations anywhere: no issue, no change', () => {
    const got = runContractGate(draft('Weight is 71 kg. Height is 170 cm.', []));
    expect(got).toMatchObject({ changed: false, issues: [], blocksWithheld: 0 });
    expect(got.draft.citations).toEqual([]);
  });

  test('the structured flag passes through', () => {
    expect(runContractGate({ ...draft('Weight 71 kg [1].', [1]), structured: false }).draft.structured).toBe(false);
  });
});
