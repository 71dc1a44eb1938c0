import { applyGroundingChecks, checkOf, summariseSupport, type GroundingCheck, type Support } from '../../../../server/checks/grounding';
import type { Reference } from '../../../../server/answer/references';
import { answer, check, fact, pair, resolved, unresolved } from './fixtures';

describe('checkOf', () => {
  test('a contradicted check names what the record states', () => {
    const p = pair('Dose 10 mg on 2024-05-02.', [2, 1], '', 'answer');
    const facts = [fact('found'), fact('differs', 'Dose: 5 mg'), fact('differs', ''), fact('not_found', 'ignored')];
    expect(checkOf(p, { support: 'contradicted', facts }, 'model')).toEqual({
      status: 'unsupported',
      support: 'contradicted',
      claim: 'Dose 10 mg on 2024-05-02.',
      location: 'answer',
      path: '',
      source_indices: [2, 1],
      method: 'model',
      facts,
      record_says: ['Dose: 5 mg'],
    });
  });

  test.each<[Support, GroundingCheck['status']]>([
    ['supported', 'verified'],
    ['not_addressed', 'unchecked'],
    ['unchecked', 'unchecked'],
  ])('%s ⇒ status %s, no record_says', (support, status) => {
    const c = checkOf(pair('A.', [1]), { support, facts: support === 'unchecked' ? null : [fact('found')] }, 'model');
    expect(c.status).toBe(status);
    expect(c).not.toHaveProperty('record_says');
  });

  test('no facts ⇒ no facts key; deterministic method kept', () => {
    const c = checkOf(pair('71 kg', [1], 'blocks[0].rows[0].cells.w', 'block'), { support: 'supported', facts: null }, 'deterministic_exact');
    expect(c).not.toHaveProperty('facts');
    expect(c).toMatchObject({ method: 'deterministic_exact', path: 'blocks[0].rows[0].cells.w', location: 'block' });
  });

  test('does not alias the pair or facts', () => {
    const p = pair('A.', [1, 2]);
    const facts = [fact('found')];
    const c = checkOf(p, { support: 'supported', facts }, 'model');
    p.sourceIndices.push(3);
    facts[0].status = 'differs';
    expect(c.source_indices).toEqual([1, 2]);
    expect(c.facts?.[0].status).toBe('found');
  });
});

type Applied = Pick<Reference, 'groundingStatus' | 'grounded' | 'support'>;

describe('applyGroundingChecks aggregation (decision 16)', () => {
  test.each<[string, Support[], Applied]>([
    ['all supported', ['supported', 'supported'], { groundingStatus: 'verified', grounded: true, support: 'supported' }],
    ['contradicted + supported ⇒ mixed, support contradicted', ['supported', 'contradicted'], { groundingStatus: 'mixed', grounded: null, support: 'contradicted' }],
    ['only contradicted ⇒ unsupported', ['contradicted'], { groundingStatus: 'unsupported', grounded: false, support: 'contradicted' }],
    ['not_addressed + supported ⇒ mixed, support not_addressed', ['supported', 'not_addressed'], { groundingStatus: 'mixed', grounded: null, support: 'not_addressed' }],
    ['only not_addressed ⇒ mixed', ['not_addressed'], { groundingStatus: 'mixed', grounded: null, support: 'not_addressed' }],
    ['unchecked beats not_addressed', ['not_addressed', 'unchecked', 'supported'], { groundingStatus: 'unchecked', grounded: null, support: 'unchecked' }],
    ['contradicted beats unchecked', ['unchecked', 'contradicted'], { groundingStatus: 'unsupported', grounded: false, support: 'contradicted' }],
  ])('%s', (_name, supports, want) => {
    const refs = [resolved(1, [answer('x [1].')])];
    const checks = supports.map((s, i) => ({ pair: pair(`claim ${i}`, [1]), check: check(s, [1], `claim ${i}`) }));
    const [out] = applyGroundingChecks(refs, checks);
    expect({ groundingStatus: out.groundingStatus, grounded: out.grounded, support: out.support }).toEqual(want);
    expect(out.groundingChecks).toHaveLength(supports.length);
  });
});

describe('applyGroundingChecks', () => {
  test('each cited reference gets the pair check; scope and group follow multi-source pairs', () => {
    const refs = [resolved(1, [answer('A [1][2].')]), resolved(2, [answer('A [1][2].'), answer('B [2].')]), resolved(3, [answer('C [3].')])];
    const pA = pair('A.', [1, 2]);
    const pB = pair('B.', [2]);
    const pC = pair('C.', [3]);
    const out = applyGroundingChecks(refs, [
      { pair: pA, check: check('supported', [1, 2], 'A.') },
      { pair: pB, check: check('contradicted', [2], 'B.') },
      { pair: pC, check: check('supported', [3], 'C.') },
    ]);
    expect(out.map((r) => (r.groundingChecks as GroundingCheck[]).map((c) => c.claim))).toEqual([['A.'], ['A.', 'B.'], ['C.']]);
    expect(out.map((r) => [r.groundingScope, r.groundingGroup])).toEqual([
      ['source_set', [1, 2]],
      ['source_set', [1, 2]],
      ['record', undefined],
    ]);
    expect(out[2]).not.toHaveProperty('groundingGroup');
    expect(out.map((r) => r.groundingStatus)).toEqual(['verified', 'mixed', 'verified']);
    expect(out[1].support).toBe('contradicted');
  });

  test('the group is the sorted union of every multi-source set', () => {
    const refs = [resolved(2, [answer('x')])];
    const out = applyGroundingChecks(refs, [
      { pair: pair('A.', [5, 2]), check: check('supported', [5, 2]) },
      { pair: pair('B.', [3, 2]), check: check('supported', [3, 2]) },
    ]);
    expect(out[0]).toMatchObject({ groundingScope: 'source_set', groundingGroup: [2, 3, 5] });
  });

  test('checks from an earlier call are kept and the scope widens (Answer then In-Depth)', () => {
    const earlier = check('supported', [1, 4], 'Answer claim.');
    const refs = [resolved(1, [answer('x')], { groundingChecks: [earlier], groundingStatus: 'verified', grounded: true, support: 'supported', groundingScope: 'source_set', groundingGroup: [1, 4] })];
    const out = applyGroundingChecks(refs, [{ pair: pair('Deep.', [1], '', 'indepth'), check: { ...check('contradicted', [1], 'Deep.'), location: 'indepth' } }]);
    expect((out[0].groundingChecks as GroundingCheck[]).map((c) => c.claim)).toEqual(['Answer claim.', 'Deep.']);
    expect(out[0]).toMatchObject({ groundingStatus: 'mixed', grounded: null, support: 'contradicted', groundingScope: 'source_set', groundingGroup: [1, 4] });
  });

  test('a record scope from an earlier single-source call stays record', () => {
    const refs = [resolved(1, [answer('x')], { groundingChecks: [check('supported', [1])], groundingScope: 'record' })];
    const out = applyGroundingChecks(refs, [{ pair: pair('B.', [1]), check: check('supported', [1], 'B.') }]);
    expect(out[0]).toMatchObject({ groundingScope: 'record', groundingStatus: 'verified' });
    expect(out[0]).not.toHaveProperty('groundingGroup');
  });

  test('unresolved references pass through untouched, even when a pair names them', () => {
    const u = unresolved(9, [answer('A [9].')]);
    const out = applyGroundingChecks([u], [{ pair: pair('A.', [9]), check: check('supported', [9]) }]);
    expect(out[0]).toEqual(u);
    expect(out[0]).not.toBe(u);
    expect(out[0]).not.toHaveProperty('groundingChecks');
  });

  test('a resolved reference given no check keeps its current fields', () => {
    const r = resolved(7, [answer('x [7].')], { groundingStatus: 'checking' });
    const out = applyGroundingChecks([r], [{ pair: pair('A.', [1]), check: check('contradicted', [1]) }]);
    expect(out[0]).toEqual(r);
  });

  test('inputs are not mutated and outputs do not alias them', () => {
    const existing = check('supported', [1]);
    const refs = [resolved(1, [answer('A [1][2].')], { groundingChecks: [existing] }), resolved(2, [answer('A [1][2].')])];
    const c = check('contradicted', [1, 2], 'A.');
    const checks = [{ pair: pair('A.', [1, 2]), check: c }];
    const before = JSON.parse(JSON.stringify({ refs, checks }));
    const out = applyGroundingChecks(refs, checks);
    expect(JSON.parse(JSON.stringify({ refs, checks }))).toEqual(before);
    expect(out[0].groundingChecks).not.toBe(refs[0].groundingChecks);
    expect(out[0].usage).not.toBe(refs[0].usage);
    // The same check written onto two references is two objects, so editing one cannot leak.
    expect(out[0].groundingChecks?.[1]).not.toBe(out[1].groundingChecks?.[0]);
    expect(out[0].groundingChecks?.[1]).not.toBe(c);
  });

  test('no checks at all ⇒ references returned as copies, unchanged', () => {
    const refs = [resolved(1, [answer('x')]), unresolved(2, [answer('y')])];
    expect(applyGroundingChecks(refs, [])).toEqual(refs);
  });
});

describe('summariseSupport', () => {
  test('counts every support value, zeros included', () => {
    expect(summariseSupport([check('supported', [1]), check('supported', [2]), check('contradicted', [1])])).toEqual({
      supported: 2,
      contradicted: 1,
      not_addressed: 0,
      unchecked: 0,
    });
    expect(summariseSupport([])).toEqual({ supported: 0, contradicted: 0, not_addressed: 0, unchecked: 0 });
  });
});
