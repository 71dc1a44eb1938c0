/** Package loading and validation (§9.1, §9.6): envelope strict, entries lenient one by one, ATC export, groups. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSources } from '../../../../server/checks/drug-safety/package-load';
import { parseAtcExport, parseCrossReactivity, parsePackageJson } from '../../../../server/checks/drug-safety/package-parse';
import { APPROVED, FIXTURES, GROUPS, approvedPackage, entry } from './helpers';

const ENVELOPE = { id: 'p', version: '1', review_state: 'clinically_approved', provenance: { authority: 'test' } };

describe('JSON package', () => {
  test('the approved fixture loads with its identity, review state and groups', () => {
    const pkg = approvedPackage();
    expect(pkg.summary).toMatchObject({ id: 'test-approved-package', version: '1.0.0', review_state: 'clinically_approved', source_format: 'json', cross_reactivity: { loaded: true, groups: 1 } });
    expect(entry(pkg, 'ibuprofen').ageBands).toHaveLength(3);
    expect(entry(pkg, 'ibuprofen').interactions.map((r) => r.severity)).toEqual(['major', 'moderate', 'minor', 'unknown']);
    expect(entry(pkg, 'ibuprofen').aliases).toEqual(['ibuprofen', 'advil']);
  });

  test.each([
    ['no review state', { ...ENVELOPE, review_state: undefined, entries: [] }],
    ['an unknown review state', { ...ENVELOPE, review_state: 'approved', entries: [] }],
    ['no provenance', { ...ENVELOPE, provenance: undefined, entries: [] }],
    ['entries not a list', { ...ENVELOPE, entries: { id: 'x' } }],
    ['not an object', ['entries']],
  ])('a package with %s is malformed and treated as absent', (_name, doc) => {
    const { pkg, issues } = parsePackageJson(JSON.parse(JSON.stringify(doc)));
    expect(pkg).toBeNull();
    expect(issues[0].id).toBe('package_malformed');
  });

  test('entries without id or name are skipped; duplicates keep the first', () => {
    const { pkg } = parsePackageJson({ ...ENVELOPE, entries: [{ name: 'No id' }, { id: 'x' }, { id: 'a', name: 'A' }, { id: 'a', name: 'A again' }] });
    expect(pkg!.entries.map((e) => e.name)).toEqual(['A']);
    expect(pkg!.issues.map((i) => i.element).sort()).toEqual(['entry_duplicate_id', 'entry_invalid']);
  });

  test('scalar list fields are empty, never read as one item', () => {
    const { pkg } = parsePackageJson({ ...ENVELOPE, entries: [{ id: 'a', name: 'A', aliases: 'alpha', atcCodes: 'M01AE01', interactions: { token: 'warfarin' }, contraindications: 'x' }] });
    const a = pkg!.entries[0];
    expect(a.aliases).toEqual(['a']);
    expect(a.atcCodes).toEqual([]);
    expect(a.interactions).toEqual([]);
    expect(a.contraindications).toEqual([]);
    expect(pkg!.issues.map((i) => i.element)).toEqual(expect.arrayContaining(['aliases_not_a_list', 'atcCodes_not_a_list', 'interactions_not_a_list']));
  });

  test('a malformed age band is dropped alone and cannot erase an interaction', () => {
    const bands = [
      { minYears: 2, maxYears: 11, mgPerKgMin: 5, mgPerKgMax: 10, maxDailyDoseMg: 1200 },
      { minYears: 12.5, maxYears: 20, maxDailyDoseMg: 1 },
      { minYears: 30, maxYears: 20, maxDailyDoseMg: 1 },
      { minYears: -1, maxYears: 20, maxDailyDoseMg: 1 },
      { minYears: 1, maxYears: 2, maxDailyDoseMg: 'lots' },
      null,
    ];
    const { pkg } = parsePackageJson({ ...ENVELOPE, entries: [{ id: 'a', name: 'A', ageBands: bands, interactions: [{ token: 'warfarin', note: 'bleeding' }] }] });
    expect(pkg!.entries[0].ageBands).toEqual([bands[0]]);
    expect(pkg!.entries[0].interactions).toEqual([{ token: 'warfarin', atc: null, note: 'bleeding', severity: null, source: null }]);
  });

  test('null rule elements and rules without a token or code are dropped', () => {
    const { pkg } = parsePackageJson({ ...ENVELOPE, entries: [{ id: 'a', name: 'A', interactions: [null, { note: 'orphan' }, { atc: 'B01' }, { atc: 'b01aa03', note: null }], contraindications: [null, { type: 'allergy' }, { type: 'diet', token: 'x' }, { type: 'condition', token: 'Peptic Ulcer' }] }] });
    expect(pkg!.entries[0].interactions).toEqual([{ token: null, atc: 'B01AA03', note: null, severity: null, source: null }]);
    expect(pkg!.entries[0].contraindications).toEqual([{ type: 'condition', token: 'peptic ulcer', note: null, source: null }]);
  });
});

describe('ATC export', () => {
  const text = fs.readFileSync(path.join(FIXTURES, 'atc-export.tsv'), 'utf8');
  const { pkg } = parseAtcExport(text, 'atc-export.tsv');

  test('only level-5 substances become entries; lower-case codes are normalised; malformed codes ignored', () => {
    expect(pkg.entries.map((e) => e.id).sort()).toEqual(['B01AC06', 'J01CA04', 'M01AE01', 'M01AE02', 'N02BA01']);
  });

  test('each entry takes its nearest parent as class, and has no rules', () => {
    const ibu = pkg.entries.find((e) => e.id === 'M01AE01')!;
    expect(ibu).toMatchObject({ name: 'ibuprofen', drugClass: 'Propionic acid derivatives', aliases: ['ibuprofen'], source: 'atc', ageBands: [], interactions: [], contraindications: [] });
    expect(pkg.entries.find((e) => e.id === 'J01CA04')!.drugClass).toBe('Penicillins with extended spectrum');
    expect(pkg.entries.find((e) => e.id === 'B01AC06')!.drugClass).toBeNull();
  });

  test('identity comes from header comments; a plain export is proposed', () => {
    expect(pkg).toMatchObject({ id: 'test-atc-export', version: '2026-01', reviewState: 'clinically_approved' });
    expect(parseAtcExport('M01AE01 ibuprofen\n', 'plain.tsv').pkg).toMatchObject({ id: 'atc:plain.tsv', reviewState: 'proposed' });
  });
});

describe('cross-reactivity groups', () => {
  test.each([
    [['M01AE', 'N02BA'], ['M01AE', 'N02BA']],
    [['M', 'M01AE'], ['M01AE']],
    [['m01', 'M01A', 'M01AE01', 'M01AE0'], ['M01', 'M01A', 'M01AE01']],
  ])('prefixes %j keep %j (ATC levels 2-5 only, never one letter)', (given, kept) => {
    expect(parseCrossReactivity({ groups: [{ name: 'G', atcPrefixes: given }] }).groups![0].atcPrefixes).toEqual(kept);
  });

  test('malformed groups are reported and not used', () => {
    expect(parseCrossReactivity({ groups: 'NSAID' })).toMatchObject({ groups: null, issues: [{ id: 'cross_reactivity_malformed' }] });
  });
});

describe('loading files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-ds-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test.each([
    ['a missing file', path.join(dir, 'missing.json'), 'package_unreadable'],
    ['invalid JSON', (() => { const f = path.join(dir, 'bad.json'); fs.writeFileSync(f, '{"id": '); return f; })(), 'package_malformed'],
  ])('%s leaves no package and an issue, never a throw', (_name, file, id) => {
    const loaded = loadSources({ format: 'json', datasetPath: file, crossReactivityPath: GROUPS });
    expect(loaded.pkg).toBeNull();
    expect(loaded.issues.map((i) => i.id)).toEqual([id]);
  });

  test('groups load independently of the package and `none` disables them', () => {
    const missingGroups = loadSources({ format: 'json', datasetPath: APPROVED, crossReactivityPath: path.join(dir, 'none.json') });
    expect(missingGroups.pkg!.groups).toEqual([]);
    expect(missingGroups.pkg!.summary.cross_reactivity.loaded).toBe(false);
    expect(missingGroups.issues.map((i) => i.id)).toEqual(['cross_reactivity_unreadable']);
    const off = loadSources({ format: 'json', datasetPath: APPROVED, crossReactivityPath: null });
    expect(off.issues).toEqual([]);
    expect(off.pkg!.summary.cross_reactivity).toEqual({ loaded: false, groups: 0, source: null });
  });

  test('the bundled package is a valid proposed package whose every rule cites its source', () => {
    const root = path.resolve(__dirname, '../../../..');
    const loaded = loadSources({ format: 'json', datasetPath: path.join(root, 'data/drug-safety/drug-reference.json'), crossReactivityPath: path.join(root, 'data/drug-safety/cross-reactivity-groups.json') });
    expect(loaded.issues).toEqual([]);
    expect(loaded.pkg!.summary.review_state).toBe('proposed');
    expect(loaded.pkg!.summary.issues).toEqual([]);
    const rules = loaded.pkg!.entries.flatMap((e) => [...e.interactions, ...e.contraindications]);
    expect(rules.length).toBeGreaterThan(20);
    for (const rule of rules) {
      expect(rule.source).toMatch(/sections? \d/);
      expect(rule.source).toMatch(/PDF pages? \d/);
    }
    for (const e of loaded.pkg!.entries) expect(e.source).toBeTruthy();
    expect(loaded.pkg!.groups.map((g) => g.name)).toEqual(['NSAID']);
  });
});
