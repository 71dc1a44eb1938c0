import {
  acronymTerms,
  analyzeQuestion,
  containsSequence,
  exactTerms,
  isNumericLike,
  isTimeWindow,
  normalizedTerms,
  relevanceTerms,
  recordRelevanceText,
  scoreRecord,
  scoreText,
  scoreTokens,
  tokenize,
} from '../../../server/context/relevance';
import type { EvidenceRecord } from '../../../server/context/types';

const sorted = (s: Set<string>) => [...s].sort();

describe('tokenize', () => {
  test.each<[string, string[]]>([
    ['CIEL:12345 and E11.9, 2.5y', ['ciel:12345', 'and', 'e11.9', '2.5y']],
    ['Finding — Weight (kg), WT): 41.0 kg', ['finding', 'weight', 'kg', 'wt', '41.0', 'kg']],
    ['http://who.int/x trailing-', ['http', 'who.int/x', 'trailing']],
    ['', []],
  ])('%s', (text, want) => expect(tokenize(text)).toEqual(want));
});

describe('token classes', () => {
  test.each<[string, boolean, boolean]>([
    // token, numeric-like, time window
    ['2006-05-18', true, false],
    ['12:30', true, false],
    ['2.5', true, false],
    ['e11.9', false, false],
    ['6mo', false, true],
    ['12-months', false, true],
    ['2.5y', false, true],
    ['3wks', false, true],
    ['48h', false, true],
    ['6mg', false, false],
  ])('%s', (token, numeric, window) => {
    expect(isNumericLike(token)).toBe(numeric);
    expect(isTimeWindow(token)).toBe(window);
  });
});

describe('normalized terms', () => {
  test.each<[string, string, string[]]>([
    ['common words are not relevance', 'What is the latest record for this patient? Please show me a summary.', []],
    ['time windows are not evidence', 'in the last 6 months, over 2.5y, past 6mo, 12-months ago', []],
    ['unlabeled numbers are dropped', 'value 12345 on 2006-05-18', ['value']],
    ['aliases fold plurals and synonyms', 'allergies, visits, drugs, conditions, labs, vaccines', ['allergy', 'diagnosis', 'encounter', 'immunization', 'lab', 'medication']],
    ['age from birth words', 'How old? born, DOB, birth', ['age']],
    ['recommend* is guidance', 'recommended recommendations guidelines', ['guidance']],
    ['clinical abbreviations', 'tuberculosis art weights ordered tests therapies results', ['antiretroviral', 'order', 'result', 'tb', 'test', 'therapy', 'weight']],
    ['object-prototype names are plain words', 'constructor valueof hasownproperty', ['constructor', 'hasownproperty', 'valueof']],
  ])('%s', (_name, text, want) => expect(sorted(normalizedTerms(text))).toEqual(want));
});

describe('acronym terms', () => {
  test.each<[string, string[]]>([
    ['What does WHO recommend for ART?', ['antiretroviral', 'who']],
    ['Is HIV VL suppressed? I am OK', ['hiv', 'ok', 'vl']],
    ['6MO window, A1c', []],
  ])('%s', (text, want) => expect(sorted(acronymTerms(text))).toEqual(want));

  test('acronyms bypass the stop list but lower-case words do not', () => {
    expect(relevanceTerms('who is it').size).toBe(0);
    expect(sorted(relevanceTerms('guidance from WHO'))).toEqual(['guidance', 'who']);
  });
});

describe('exact terms', () => {
  test.each<[string, string[][]]>([
    ['Compare "Sprained ankle", 2023-01-01, 11111111-1111-4111-8111-111111111111, and CIEL:12345.', [['2023-01-01'], ['ciel:12345'], ['sprained', 'ankle']]],
    ['What is order number: 12345?', [['order', 'number', '12345']]],
    ['record id #A-7 please', [['a-7'], ['record', 'id', 'a-7']]],
    ['identifier: 99 and concept id: 5089', [['identifier', '99'], ['concept', 'id', '5089']]],
    ['unlabeled 12345 and 5089 are not ids', []],
    ['weight over 12-months or 6-mo', []],
    ['smart quotes “viral load” too', [['viral', 'load']]],
    ['empty quotes "" are nothing', []],
    ['HIV-1 status', [['hiv-1']]],
  ])('%s', (question, want) => expect(exactTerms(question)).toEqual(want));
});

describe('containsSequence', () => {
  test.each<[string[], string[], boolean]>([
    [['a', 'b', 'c'], ['b', 'c'], true],
    [['a', 'b', 'c'], ['a', 'c'], false],
    [['a'], ['a', 'b'], false],
    [['a'], [], false],
  ])('%j in %j', (tokens, seq, want) => expect(containsSequence(tokens, seq)).toBe(want));
});

describe('scoreText (question × record)', () => {
  test.each<[string, string, string, { exact: boolean; overlap: number }]>([
    ['labelled id matches on whole tokens', 'Show order id: 123', 'Lab order id: 123', { exact: true, overlap: 2 }],
    ['no numeric-substring id match', 'Show order id: 123', 'Lab order id: 1234', { exact: false, overlap: 2 }],
    ['unlabeled numbers are not ids', 'What is 12345?', 'Identifier 12345', { exact: false, overlap: 0 }],
    ['quoted phrase on token boundaries', 'Any "ankle" injury?', 'Sprained ankles', { exact: false, overlap: 0 }],
    ['quoted phrase matches whole tokens', 'Any "ankle sprain"?', 'Condition: ankle sprain, resolved', { exact: true, overlap: 2 }],
    ['coded term', 'Is CIEL:12345 recorded?', 'Diagnosis: Malaria (CIEL:12345)', { exact: true, overlap: 1 }],
    ['ISO date is exact', 'What happened on 2023-01-01?', 'Return visit date: 2023-01-01', { exact: true, overlap: 0 }],
    ['common words are not relevance', 'What is the latest record for this patient?', 'Patient record: what is this', { exact: false, overlap: 0 }],
    ['"age" matches birth records', 'How old is the patient?', 'Patient: Jane Doe. Female. Born 1998-05-30', { exact: false, overlap: 1 }],
    ['age question matches DOB', "What is the patient's age?", 'Demographics: DOB 1998-05-30', { exact: false, overlap: 1 }],
    ['time windows are not evidence', 'weight in the last 6 months', 'Weight (kg): 70 kg, 6 months follow-up', { exact: false, overlap: 1 }],
    ['2.5y and 6mo are not ids', 'changes over 2.5y or 6mo', 'Note: 2.5y and 6mo', { exact: false, overlap: 0 }],
    ['appointment question matches return-visit evidence', 'When is the next appointment?', 'Assessment — Return visit date: 2006-05-18', { exact: false, overlap: 1 }],
    ['medication synonyms', 'Which drugs is she on?', 'Drug order: Nevirapine. Action: NEW', { exact: false, overlap: 1 }],
  ])('%s', (_name, question, text, want) => expect(scoreText(analyzeQuestion(question), text)).toEqual(want));

  test('the spelling pre-check never changes a score (randomised questions and records)', () => {
    const words = [
      'weight', 'Weights', 'WEIGHT', 'visit', 'Appointments', 'encounter', 'drug', 'Medicines', 'allergy', 'ALLERGIC', 'recommended',
      'Recommendation', 'guidelines', 'WHO', 'who', 'ART', 'art', 'tb', 'Tuberculosis', 'DOB', 'born', 'old', 'the', 'patient', 'last',
      '6mo', '2.5y', '12345', 'CIEL:12345', '2023-01-01', 'order', 'id:', '123', 'kg', '—', 'Hämoglobin', 'İstanbul', 'K', 'constructor',
      '"ankle', 'sprain"', 'results', 'lab', 'LABS', 'x-ray', 'E11.9',
    ];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const phrase = (len: number) => Array.from({ length: len }, () => words[rand(words.length)]).join(rand(3) === 0 ? ', ' : ' ');
    for (let i = 0; i < 400; i++) {
      const question = analyzeQuestion(phrase(1 + rand(6)));
      for (let j = 0; j < 10; j++) {
        const text = phrase(rand(12));
        expect(scoreText(question, text)).toEqual(scoreTokens(question, text));
      }
    }
  });
});

describe('scoreRecord', () => {
  const record = (over: Partial<EvidenceRecord>): EvidenceRecord => ({
    stableId: 'x', source: 'inline', sourcePriority: 10, resourceType: 'ChartRecord', resourceUuid: null, date: null,
    text: '', mandatory: false, metadata: {}, raw: {}, ...over,
  });

  test('resource type and title take part', () => {
    const r = record({ resourceType: 'Immunization', text: 'BCG given', metadata: { title: 'Childhood schedule' } });
    expect(scoreRecord(analyzeQuestion('Which vaccines and schedule?'), r)).toEqual({ exact: false, overlap: 2 });
  });

  test('judging the parts one by one never changes a score (randomised records, titles and authorities)', () => {
    const words = ['weight', 'WEIGHT', 'Weigh', 'visit', 'Appointments', 'drug', 'x-ray', 'X-RAY', 'who', 'WHO', 'guidelines', 'recommend', '—', 'İ', 'K', 'kg', 'İstanbul', '\n', 'allergy', 'ALLERGIC', 'ciel:12345', '2023-01-01'];
    const types = ['ChartRecord', 'KnowledgeReference', 'Observation', 'AllergyIntolerance'];
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const phrase = (len: number) => Array.from({ length: len }, () => words[rand(words.length)]).join(rand(4) === 0 ? '' : ' ');
    // A question of more spellings than one search takes (every alias of medication, encounter, …).
    const long = `${Array.from({ length: 80 }, (_, i) => `term${i}`).join(' ')} drugs visits allergies weight`;
    for (let i = 0; i < 300; i++) {
      const question = analyzeQuestion(i % 50 === 0 ? long : phrase(1 + rand(5)));
      for (let j = 0; j < 10; j++) {
        const metadata: Record<string, unknown> = {};
        if (rand(2)) metadata.title = phrase(rand(3));
        if (rand(2)) metadata.authority = phrase(1 + rand(2));
        const r = record({ resourceType: types[rand(types.length)], text: phrase(rand(10)), metadata });
        expect(scoreRecord(question, r)).toEqual(scoreTokens(question, recordRelevanceText(r)));
      }
    }
  });

  test('a question of many spellings is searched one spelling at a time, with the same result', () => {
    const long = analyzeQuestion(`${Array.from({ length: 80 }, (_, i) => `term${i}`).join(' ')} weight`);
    expect(long.spellingSearch).toBeNull();
    expect(scoreRecord(long, record({ text: 'Weight (kg): 71' })).overlap).toBe(1);
    expect(analyzeQuestion('latest weight?').spellingSearch).not.toBeNull();
  });

  test('a question with a token of a megabyte (more than one search pattern may hold) scores as a plain tokenisation does', () => {
    const huge = `What about ${'x'.repeat(1_000_000)} and weight?`;
    const question = analyzeQuestion(huge);
    expect(question.spellingSearch).toBeNull();
    const r = record({ text: `Weight (kg): 71 ${'x'.repeat(1_000_000)}` });
    expect(scoreRecord(question, r)).toEqual(scoreTokens(question, recordRelevanceText(r)));
    expect(scoreRecord(question, record({ text: 'Weight (kg): 71' })).overlap).toBe(1);
  });

  test('authority names select knowledge references', () => {
    const kb = record({ resourceType: 'KnowledgeReference', source: 'knowledge-base', text: 'Hypertension: start with a thiazide (source: Formulary)', metadata: { authority: 'WHO' } });
    expect(scoreRecord(analyzeQuestion('What does WHO say?'), kb).overlap).toBe(1);
    const chart = record({ text: 'Hypertension: start with a thiazide', metadata: { authority: 'WHO' } });
    expect(scoreRecord(analyzeQuestion('What does WHO say?'), chart).overlap).toBe(0);
  });
});
