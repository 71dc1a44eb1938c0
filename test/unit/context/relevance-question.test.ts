/**
 * analyzeQuestion tokenises the question once (a megabyte of question was tokenised three times a turn)
 * and must give what the separate passes give: normalized terms then acronyms, and the exact terms.
 */
import { LoopSlice, stepsInSlices } from '../../../server/event-loop';
import { acronymTerms, analyzeQuestion, analyzeQuestionSteps, exactTerms, normalizedTerms } from '../../../server/context/relevance';
import { lcg } from '../../support/random-chart';

const ATOMS = ['weight', 'Weight', 'WHO', 'ART', 'art', 'the', 'last', '6mo', '12-months', '2026-03-02', 'order id: 77', 'CIEL:12345', '"ankle pain"', '“quoted”', '"', '“', 'E11.9', 'visits', 'US', 'x', ' ', ' ', '\n', ',', 'recommendation', 'constructor', '__proto__', 'HB', 'hb'];

describe('analyzeQuestion', () => {
  test('equals the separate passes on 5,000 random questions', () => {
    const rand = lcg(13);
    for (let i = 0; i < 5000; i++) {
      const q = Array.from({ length: Math.floor(rand() * 14) }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join(rand() < 0.7 ? ' ' : '');
      const got = analyzeQuestion(q);
      const terms = new Set([...normalizedTerms(q), ...acronymTerms(q)]);
      expect({ q, terms: [...got.terms], exact: got.exact }).toEqual({ q, terms: [...terms], exact: exactTerms(q) });
    }
  });

  test('a long question tokenised a piece at a time: the same analysis', async () => {
    const rand = lcg(37);
    for (let i = 0; i < 12; i++) {
      // 20,000 atoms (~100 KB): several pieces, cut only where no token can span the cut.
      const q = Array.from({ length: 20_000 }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join(i % 2 ? ' ' : '');
      const slice = new LoopSlice(0);
      const got = await stepsInSlices(analyzeQuestionSteps(q), slice);
      const terms = new Set([...normalizedTerms(q), ...acronymTerms(q)]);
      expect({ terms: [...got.terms], exact: got.exact, spellings: got.spellings }).toEqual({ terms: [...terms], exact: exactTerms(q), spellings: analyzeQuestion(q).spellings });
      expect(slice.yields).toBeGreaterThan(5);
    }
  });
});
