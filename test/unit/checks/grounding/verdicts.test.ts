import Ajv from 'ajv';
import {
  deriveSupport,
  GROUNDING_RESPONSE_FORMAT,
  parseFactReply,
  statusOfSupport,
  type CheckedFact,
  type Support,
} from '../../../../server/checks/grounding';
import { fact } from './fixtures';

describe('deriveSupport', () => {
  test.each<[string, CheckedFact[] | null, Support]>([
    ['null (no judgement)', null, 'unchecked'],
    ['empty list', [], 'not_addressed'],
    ['all found', [fact('found'), fact('found')], 'supported'],
    ['one found', [fact('found')], 'supported'],
    ['any differs wins over found', [fact('found'), fact('differs')], 'contradicted'],
    ['differs wins over not_found', [fact('not_found'), fact('differs')], 'contradicted'],
    ['found + not_found', [fact('found'), fact('not_found')], 'not_addressed'],
    ['only not_found', [fact('not_found')], 'not_addressed'],
  ])('%s', (_name, facts, want) => {
    expect(deriveSupport(facts)).toBe(want);
  });
});

describe('statusOfSupport', () => {
  test.each<[Support, string]>([
    ['supported', 'verified'],
    ['contradicted', 'unsupported'],
    ['not_addressed', 'unchecked'],
    ['unchecked', 'unchecked'],
  ])('%s ⇒ %s', (support, want) => {
    expect(statusOfSupport(support)).toBe(want);
  });
});

const F1 = { fact: 'weight 71 kg', status: 'found', source_says: '' };
const F2 = { fact: 'dose 10 mg', status: 'differs', source_says: 'dose 5 mg' };
const body = (pairs: unknown[]): string => JSON.stringify({ pairs });
const found: CheckedFact[] = [{ fact: 'weight 71 kg', status: 'found', source_says: '' }];
const differs: CheckedFact[] = [{ fact: 'dose 10 mg', status: 'differs', source_says: 'dose 5 mg' }];

describe('parseFactReply', () => {
  test.each<[string, string, number, Array<CheckedFact[] | null> | null]>([
    ['plain JSON', body([{ pair: 1, facts: [F1] }, { pair: 2, facts: [F2] }]), 2, [found, differs]],
    ['```json fence', '```json\n' + body([{ pair: 1, facts: [F1] }]) + '\n```', 1, [found]],
    ['bare ``` fence', '```\n' + body([{ pair: 1, facts: [F1] }]) + '\n```', 1, [found]],
    ['prose around', 'Here you go:\n' + body([{ pair: 1, facts: [F1] }]) + '\nHope this helps.', 1, [found]],
    ['mapped by pair number, not position', body([{ pair: 2, facts: [F2] }, { pair: 1, facts: [F1] }]), 2, [found, differs]],
    ['positional without pair numbers', body([{ facts: [F2] }, { facts: [F1] }]), 2, [differs, found]],
    ['out-of-range pair number falls back to position', body([{ pair: 9, facts: [F1] }, { pair: 2, facts: [F2] }]), 2, [found, differs]],
    ['missing pair ⇒ null for that pair only', body([{ pair: 1, facts: [F1] }]), 3, [found, null, null]],
    ['bad status ⇒ null for that pair only', body([{ pair: 1, facts: [{ ...F1, status: 'maybe' }] }, { pair: 2, facts: [F2] }]), 2, [null, differs]],
    ['fact not a string ⇒ null', body([{ pair: 1, facts: [{ ...F1, fact: 3 }] }]), 1, [null]],
    ['facts not an array ⇒ null', body([{ pair: 1, facts: 'found' }]), 1, [null]],
    ['entry not an object ⇒ null', body(['yes', { pair: 2, facts: [F1] }]), 2, [null, found]],
    ['two entries for one pair ⇒ null (ambiguous)', body([{ pair: 1, facts: [F1] }, { pair: 1, facts: [F2] }]), 2, [null, null]],
    ['extra entries beyond count ignored', body([{ facts: [F1] }, { facts: [F2] }]), 1, [found]],
    ['empty facts list kept', body([{ pair: 1, facts: [] }]), 1, [[]]],
    ['source_says missing ⇒ empty', body([{ pair: 1, facts: [{ fact: 'a', status: 'found' }] }]), 1, [[{ fact: 'a', status: 'found', source_says: '' }]]],
    [
      'status case and spelling variants',
      body([{ pair: 1, facts: [{ fact: 'a', status: 'Not Found' }, { fact: 'b', status: 'not-found' }, { fact: 'c', status: 'FOUND' }, { fact: 'd', status: ' Differs ' }] }]),
      1,
      [[
        { fact: 'a', status: 'not_found', source_says: '' },
        { fact: 'b', status: 'not_found', source_says: '' },
        { fact: 'c', status: 'found', source_says: '' },
        { fact: 'd', status: 'differs', source_says: '' },
      ]],
    ],
    ['not JSON', 'YES\nNO', 2, null],
    ['truncated JSON', '{"pairs": [{"pair": 1, "facts": [', 1, null],
    ['no pairs array', JSON.stringify({ verdicts: ['YES'] }), 1, null],
    ['pairs not an array', JSON.stringify({ pairs: { pair: 1 } }), 1, null],
    ['top-level array', JSON.stringify([{ pair: 1, facts: [F1] }]), 1, null],
    ['empty content', '', 1, null],
  ])('%s', (_name, content, count, want) => {
    expect(parseFactReply(content, count)).toEqual(want);
  });
});

describe('GROUNDING_RESPONSE_FORMAT', () => {
  const { json_schema: spec } = GROUNDING_RESPONSE_FORMAT;
  const validate = new Ajv({ strict: false }).compile(spec.schema);

  test('is a strict json_schema named grounding_facts', () => {
    expect(GROUNDING_RESPONSE_FORMAT.type).toBe('json_schema');
    expect(spec.name).toBe('grounding_facts');
    expect(spec.strict).toBe(true);
  });

  test.each<[string, unknown, boolean]>([
    ['a valid reply', { pairs: [{ pair: 1, facts: [F1, F2] }] }, true],
    ['an empty facts list', { pairs: [{ pair: 1, facts: [] }] }, true],
    ['an unknown status', { pairs: [{ pair: 1, facts: [{ ...F1, status: 'yes' }] }] }, false],
    ['a non-integer pair', { pairs: [{ pair: 1.5, facts: [F1] }] }, false],
    ['missing source_says', { pairs: [{ pair: 1, facts: [{ fact: 'a', status: 'found' }] }] }, false],
    ['an extra key', { pairs: [{ pair: 1, facts: [F1], verdict: 'YES' }] }, false],
  ])('%s', (_name, reply, ok) => {
    expect(validate(reply)).toBe(ok);
  });
});
