import { checkTable } from '../../../server/checks/contracts';

const cell = (text: string, refs: number[] = [1]) => ({ text, refs });
const DATE_WEIGHT = [
  { key: 'date', label: 'Date' },
  { key: 'weight', label: 'Weight' },
];
const table = (rows: unknown, extra: Record<string, unknown> = {}) => ({ kind: 'table', title: 'Weights', columns: DATE_WEIGHT, rows, ...extra });
const row = <C extends Record<string, unknown>>(cells: C) => ({ cells });
const goodRows = [row({ date: cell('2026-03-02', [1]), weight: cell('71 kg', [1]) }), row({ date: cell('2026-01-10', [2]), weight: cell('74 kg', [2]) })];

/** Flat one-cell rows, as small models write them. */
const flat = (...cells: Array<[string, string, number[]]>) => cells.map(([key, text, refs]) => row({ [key]: cell(text, refs) }));

describe('checkTable: valid blocks pass as fresh copies', () => {
  test('a well-formed table is kept unchanged and not aliased', () => {
    const block = table(goodRows);
    const got = checkTable(block, 0);
    expect(got).toEqual({ block, repaired: false, issue: null });
    expect(got.block).not.toBe(block);
    expect(got.block!.rows[0].cells.date.refs).not.toBe(goodRows[0].cells.date.refs);
  });

  test('cell keys may come in any object order; the copy follows column order', () => {
    const got = checkTable(table([row({ weight: cell('71 kg'), date: cell('2026-03-02') })]), 0);
    expect(Object.keys(got.block!.rows[0].cells)).toEqual(['date', 'weight']);
  });

  test('cells with empty refs are valid (usage is the citation contract’s business)', () => {
    expect(checkTable(table([row({ date: cell('2026-03-02', []), weight: cell('71 kg', []) })]), 0).issue).toBeNull();
  });
});

describe('checkTable: every validity rule withholds the block with table_contract', () => {
  test.each<[string, unknown, RegExp]>([
    ['not an object', 'a table', /not an object/],
    ['array instead of object', [goodRows], /not an object/],
    ['kind is not table', table(goodRows, { kind: 'chart' }), /kind/],
    ['title missing', { kind: 'table', columns: DATE_WEIGHT, rows: goodRows }, /title/],
    ['title not a string', table(goodRows, { title: 3 }), /title/],
    ['no columns', table(goodRows, { columns: [] }), /no columns/],
    ['columns not an array', table(goodRows, { columns: { key: 'date' } }), /no columns/],
    ['column without label', table(goodRows, { columns: [{ key: 'date' }, { key: 'weight', label: 'W' }] }), /column 1/],
    ['blank column key', table(goodRows, { columns: [{ key: ' ', label: 'Date' }, { key: 'weight', label: 'W' }] }), /blank key/],
    ['repeated column key', table(goodRows, { columns: [{ key: 'date', label: 'A' }, { key: 'date', label: 'B' }] }), /repeated/],
    ['no rows', table([]), /no rows/],
    ['rows not an array', table({ 0: goodRows[0] }), /no rows/],
    ['row without cells', table([{ cell: {} }]), /row 1 has no cells/],
    ['row missing a column', table([goodRows[0], row({ date: cell('2026-01-10') })]), /row 2 cells/],
    ['row with an extra cell', table([row({ date: cell('2026-03-02'), weight: cell('71 kg'), note: cell('x') })]), /row 1 cells/],
    ['cell text not a string', table([row({ date: cell('2026-03-02'), weight: { text: 71, refs: [1] } })]), /text is not a string/],
    ['cell refs not integers', table([row({ date: cell('2026-03-02'), weight: { text: '71 kg', refs: ['1'] } })]), /refs/],
    ['cell refs fractional', table([row({ date: cell('2026-03-02'), weight: { text: '71 kg', refs: [1.5] } })]), /refs/],
    ['cell with an extra key', table([row({ date: cell('2026-03-02'), weight: { text: '71 kg', refs: [1], unit: 'kg' } })]), /exactly text and refs/],
    ['cell missing refs', table([row({ date: cell('2026-03-02'), weight: { text: '71 kg' } })]), /exactly text and refs/],
  ])('%s', (_name, block, why) => {
    const got = checkTable(block, 2);
    expect(got.block).toBeNull();
    expect(got.repaired).toBe(false);
    expect(got.issue).toMatchObject({ id: 'table_contract', status: 'fail', severity: 'block' });
    expect(got.issue!.reason).toMatch(/blocks\[2\]/);
    expect(got.issue!.reason).toMatch(why);
  });

  test('a withheld table keeps its sources on the issue', () => {
    const got = checkTable(table([row({ date: cell('2026-03-02', [3, 4]) }), row({ date: cell('2026-01-10', [4, 0]), weight: cell('74 kg', [9]) })]), 0);
    expect(got.issue!.source_indices).toEqual([3, 4, 9]);
  });
});

describe('checkTable: regrouping flat cells', () => {
  test('a column keyed __proto__ (JSON from a model) keeps its cell when flat cells are regrouped', () => {
    const block = JSON.parse(
      '{"kind":"table","title":"T","columns":[{"key":"__proto__","label":"P"},{"key":"weight","label":"Weight"}],' +
        '"rows":[{"cells":{"__proto__":{"text":"a","refs":[1]}}},{"cells":{"weight":{"text":"71 kg","refs":[1]}}}]}',
    );
    const got = checkTable(block, 0);
    expect(got.repaired).toBe(true);
    expect(JSON.parse(JSON.stringify(got.block!.rows))).toEqual([{ cells: JSON.parse('{"__proto__":{"text":"a","refs":[1]},"weight":{"text":"71 kg","refs":[1]}}') }]);
  });

  test('alternating Date/Weight flat cells (6 single-cell rows) become 3 rows', () => {
    const block = table(
      flat(['date', '2026-03-02', [1]], ['weight', '71 kg', [1]], ['date', '2026-01-10', [2]], ['weight', '74 kg', [2]], ['date', '2025-11-01', [3, 4]], ['weight', '76.5 kg', [4, 3]]),
    );
    const got = checkTable(block, 0);
    expect(got.repaired).toBe(true);
    expect(got.issue).toBeNull();
    expect(got.block).toEqual({
      kind: 'table',
      title: 'Weights',
      columns: DATE_WEIGHT,
      rows: [
        row({ date: cell('2026-03-02', [1]), weight: cell('71 kg', [1]) }),
        row({ date: cell('2026-01-10', [2]), weight: cell('74 kg', [2]) }),
        row({ date: cell('2025-11-01', [3, 4]), weight: cell('76.5 kg', [4, 3]) }),
      ],
    });
  });

  test('free-text columns are unconstrained and repairable', () => {
    const columns = [
      { key: 'drug', label: 'Medication' },
      { key: 'dose', label: 'Dose' },
      { key: 'status', label: 'Status' },
    ];
    const rows = flat(['drug', 'Nevirapine', [5]], ['dose', '200 mg twice daily', [5]], ['status', 'active, new order', [5]], ['drug', 'Fluconazole', [6]], ['dose', 'as directed', [6]], ['status', 'stopped', [6]]);
    const got = checkTable({ kind: 'table', title: 'Medications', columns, rows }, 1);
    expect(got.repaired).toBe(true);
    expect(got.block!.rows).toEqual([
      row({ drug: cell('Nevirapine', [5]), dose: cell('200 mg twice daily', [5]), status: cell('active, new order', [5]) }),
      row({ drug: cell('Fluconazole', [6]), dose: cell('as directed', [6]), status: cell('stopped', [6]) }),
    ]);
  });

  test.each(['156 lbs', '156 lb', '71kg', '71.5 kg', '71 kg (WT)', '71 KG'])('weight column accepts %j', (weight) => {
    expect(checkTable(table(flat(['date', '2026-03-02', [1]], ['weight', weight, [1]])), 0).repaired).toBe(true);
  });

  test('date and weight rules follow the column label too', () => {
    const columns = [
      { key: 'when', label: 'Visit date' },
      { key: 'value', label: 'Body weight' },
    ];
    const ok = checkTable({ kind: 'table', title: 'W', columns, rows: flat(['when', '2026-03-02', [1]], ['value', '71 kg', [1]]) }, 0);
    expect(ok.repaired).toBe(true);
    const bad = checkTable({ kind: 'table', title: 'W', columns, rows: flat(['when', 'March 2', [1]], ['value', '71 kg', [1]]) }, 0);
    expect(bad.block).toBeNull();
  });

  test.each<[string, unknown[], RegExp]>([
    ['reversed flat key order is not guessed', flat(['weight', '71 kg', [1]], ['date', '2026-03-02', [1]], ['weight', '74 kg', [2]], ['date', '2026-01-10', [2]]), /"weight" where column "date"/],
    ['reversed content under the right keys is not guessed', flat(['date', '71 kg', [1]], ['weight', '2026-03-02', [1]]), /does not fit column "Date"/],
    ['cell count not a multiple of the columns', flat(['date', '2026-03-02', [1]], ['weight', '71 kg', [1]], ['date', '2026-01-10', [2]]), /3 flat cells do not fill 2 columns/],
    ['group refs differ', flat(['date', '2026-03-02', [1]], ['weight', '71 kg', [2]]), /refs set/],
    ['group refs empty', flat(['date', '2026-03-02', []], ['weight', '71 kg', []]), /refs set/],
    ['date not ISO', flat(['date', '02/03/2026', [1]], ['weight', '71 kg', [1]]), /does not fit/],
    ['date not on the calendar', flat(['date', '2026-02-30', [1]], ['weight', '71 kg', [1]]), /does not fit/],
    ['weight without a mass unit', flat(['date', '2026-03-02', [1]], ['weight', '71', [1]]), /does not fit/],
    ['BMI in a weight column', flat(['date', '2026-03-02', [1]], ['weight', '24 kg/m2', [1]]), /does not fit/],
    ['weight not leading with a number', flat(['date', '2026-03-02', [1]], ['weight', 'about 71 kg', [1]]), /does not fit/],
    ['a flat cell with a bad shape', flat(['date', '2026-03-02', [1]], ['weight', '71 kg', [1]]).map((r, i) => (i === 1 ? row({ weight: { text: '71 kg', refs: [1], x: 1 } }) : r)), /exactly text and refs/],
    ['a key that names no column', flat(['date', '2026-03-02', [1]], ['cell', '71 kg', [1]]), /"cell" where column "weight"/],
    ['mixed flat and full rows', [row({ date: cell('2026-03-02'), weight: cell('71 kg') }), ...flat(['date', '2026-01-10', [2]], ['weight', '74 kg', [2]])], /not one flat cell/],
  ])('%s ⇒ withheld', (_name, rows, why) => {
    const got = checkTable(table(rows), 0);
    expect(got.block).toBeNull();
    expect(got.repaired).toBe(false);
    expect(got.issue).toMatchObject({ id: 'table_contract', status: 'fail', severity: 'block' });
    expect(got.issue!.reason).toMatch(/cannot be safely regrouped/);
    expect(got.issue!.reason).toMatch(why);
  });
});
