/**
 * The ingest text rules, as tables of cases: sentence splitting, heading detection, the criteria/directive
 * split, the whitespace-insensitive quote match, directive cues and section kinds.
 */
import { sectionKind, pageLabel } from '../../server/knowledge/ingest/structure';
import {
  containsQuote, findQuote, hasDirectiveCue, isBoxedWarningHeading, parseNumberedHeading, splitCriteriaDirective, splitSentences, squash,
} from '../../server/knowledge/ingest/text';

describe('splitSentences', () => {
  test.each<[string, string[]]>([
    ['One sentence. Two sentence.', ['One sentence.', 'Two sentence.']],
    ['Use caution (e.g., in the elderly). Monitor INR.', ['Use caution (e.g., in the elderly).', 'Monitor INR.']],
    ['Avoid use, i.e. never co-administer. Stop.', ['Avoid use, i.e. never co-administer.', 'Stop.']],
    ['Treat H. pylori infection. Then stop.', ['Treat H. pylori infection.', 'Then stop.']],
    ['Dose is 2.5 mg daily. Adjust weekly.', ['Dose is 2.5 mg daily.', 'Adjust weekly.']],
    ['See [Warnings (5.1). Below]. Next one.', ['See [Warnings (5.1). Below].', 'Next one.']],
    ['Made in the U.S. Only here.', ['Made in the U.S. Only here.']],
    ['no final period here', ['no final period here']],
    ['Is it safe? Yes! Done.', ['Is it safe?', 'Yes!', 'Done.']],
    ['Ends with number 3. 4 patients died.', ['Ends with number 3.', '4 patients died.']],
    ['lower case after period. still same', ['lower case after period. still same']],
    ['', []],
  ])('%j', (text, expected) => {
    const out = splitSentences(text);
    expect(out).toEqual(expected);
    // Every sentence is an exact substring of the paragraph (the stored verbatim is the source's bytes).
    for (const s of out) expect(text.includes(s)).toBe(true);
  });
});

describe('heading detection', () => {
  test.each<[string, { major: number; minor: number | null; title: string } | null]>([
    ['7 DRUG INTERACTIONS', { major: 7, minor: null, title: 'DRUG INTERACTIONS' }],
    ['7.4 Antibiotics and Antifungals', { major: 7, minor: 4, title: 'Antibiotics and Antifungals' }],
    ['17 PATIENT COUNSELING INFORMATION', { major: 17, minor: null, title: 'PATIENT COUNSELING INFORMATION' }],
    ['100 Tablets', null],
    ['2 to 5 mg once daily', null],
    ['0 Something', null],
    ['10 mg. Take daily', null],
    ['Warfarin sodium', null],
    ['5.1', null],
  ])('%j', (line, expected) => {
    expect(parseNumberedHeading(line)).toEqual(expected);
  });

  test.each<[string, boolean]>([
    ['WARNING: BLEEDING RISK', true],
    ['WARNING: LACTIC ACIDOSIS', true],
    ['BOXED WARNING', true],
    ['Warnings and Precautions', false],
    ['WARNINGS AND PRECAUTIONS', false],
  ])('boxed warning %j → %s', (line, expected) => {
    expect(isBoxedWarningHeading(line)).toBe(expected);
  });
});

describe('criteria / directive split', () => {
  test.each<[string, { criteria: string; directive: string } | null]>([
    ['If metformin-associated lactic acidosis is suspected, immediately discontinue metformin hydrochloride.', { criteria: 'If metformin-associated lactic acidosis is suspected', directive: 'immediately discontinue metformin hydrochloride.' }],
    ['In patients with non-valvular AF, anticoagulate with warfarin to target INR of 2.5 (range, 2.0 to 3.0).', { criteria: 'In patients with non-valvular AF', directive: 'anticoagulate with warfarin to target INR of 2.5 (range, 2.0 to 3.0).' }],
    ['When pregnancy is detected, discontinue lisinopril as soon as possible.', { criteria: 'When pregnancy is detected', directive: 'discontinue lisinopril as soon as possible.' }],
    ['For patients (e.g., adults, children) with DVT, treat for 3 months.', { criteria: 'For patients (e.g., adults, children) with DVT', directive: 'treat for 3 months.' }],
    ['In addition, monitor the patient closely.', null],
    ['Closely monitor INR when starting or stopping any antibiotic.', null],
    ['If needed, stop.', null],
  ])('%j', (sentence, expected) => {
    const out = splitCriteriaDirective(sentence);
    expect(out).toEqual(expected);
    if (out) {
      expect(sentence.includes(out.criteria)).toBe(true);
      expect(sentence.includes(out.directive)).toBe(true);
    }
  });
});

describe('whitespace-insensitive quote match', () => {
  const chunk = 'Amoxicillin is indicated for Helicobacter pyloriInfection in adults.\nTake   with water.';
  test.each<[string, string | null]>([
    ['Helicobacter pylori Infection', 'Helicobacter pyloriInfection'],
    ['Amoxicillin is indicated', 'Amoxicillin is indicated'],
    ['in adults. Take with water.', 'in adults.\nTake   with water.'],
    ['  Take with water.  ', 'Take   with water.'],
    ['Take with milk.', null],
    ['amoxicillin is indicated', null],
    ['', null],
  ])('%j → %j', (quote, bytes) => {
    const hit = findQuote(chunk, quote);
    expect(hit?.bytes ?? null).toBe(bytes);
    expect(containsQuote(chunk, quote)).toBe(bytes !== null);
    if (hit) expect(chunk.slice(hit.start, hit.end)).toBe(hit.bytes);
  });

  test('squash removes every whitespace character and NFC-normalises', () => {
    expect(squash(' a\tb\nc\u00a0d ')).toBe('abcd');
    expect(squash('e\u0301')).toBe('\u00e9');
  });
});

describe('directive cues and section kinds', () => {
  test.each<[string, boolean]>([
    ['Closely monitor INR when starting any antibiotic.', true],
    ['Avoid use of aliskiren with lisinopril.', true],
    ['Lisinopril is contraindicated in patients with angioedema.', true],
    ['Do not co-administer aliskiren.', true],
    ['There have been reports of changes in INR.', false],
    ['Warfarin is a vitamin K antagonist.', false],
  ])('cue %j → %s', (s, expected) => expect(hasDirectiveCue(s)).toBe(expected));

  test.each<[string[], string]>([
    [['WARNING: BLEEDING RISK'], 'boxed_warning'],
    [['4 CONTRAINDICATIONS'], 'contraindication'],
    [['7 DRUG INTERACTIONS', '7.4 Antibiotics and Antifungals'], 'interaction'],
    [['5 WARNINGS AND PRECAUTIONS', '5.1 Hemorrhage'], 'warning'],
    [['8 USE IN SPECIFIC POPULATIONS', '8.1 Pregnancy'], 'population'],
    [['2 DOSAGE AND ADMINISTRATION', '2.4 Dose in Patients with Renal Impairment'], 'population'],
    [['2 DOSAGE AND ADMINISTRATION', '2.1 Hypertension'], 'dosage'],
    [['12 CLINICAL PHARMACOLOGY', '12.3 Pharmacokinetics'], 'other'],
  ])('kind of %j → %s', (titles, kind) => expect(sectionKind(titles)).toBe(kind));

  test.each<[number[], string | null]>([[[], null], [[9], '9'], [[8, 9], '8-9'], [[9, 8, 9], '8-9']])('page label %j → %j', (pages, label) => {
    expect(pageLabel(pages)).toBe(label);
  });
});
