/**
 * Random chart text for equivalence tests of the sliced (large-input) paths against the plain ones:
 * numbered lines with and without dates (possible and impossible), continuation and blank lines, CRLF,
 * lone CR and U+2028 inside lines, blanks before the number, trailing date-kind markers, knowledge and
 * drug references, numeric, date-valued and administrative records, concepts in several spellings.
 */
export function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

const BODIES = [
  'Finding — Weight (kg): 7{n} kg',
  'Finding — weight (kg): 6{n} kg',
  'Finding — WEIGHT: 5{n}.5 kg (part of: Vitals)',
  'Finding — Blood pressure: 12{n}/80 mmHg',
  'Finding — Haemoglobin: 1{n}.2 g/dL',
  'Finding — CD4 count: 3{n}0 cells/µL',
  'Assessment — Return visit date: 2026-0{m}-1{n}',
  'Assessment — Next appointment: 2025-1{m}-0{n} and 2026-02-30',
  'Encounter: Adult Visit at Clinic {n}',
  'Visit: follow-up {n}',
  'Program: HIV care enrollment state {n}',
  'Drug order — Paracetamol: 500 mg',
  'Condition: Hypertension. Status: active',
  'Allergy: Penicillin. Reaction: rash',
  'Note: counselling session {n} covered adherence',
  'Finding — Temperature: 3{n} °C [administrative]',
  'Finding — Pulse: 7{n}/min [unknown]',
  'KnowledgeReference (source: kb): WHO guidance {n}',
  'Drug reference: amoxicillin {n}',
  'Finding — Answer: 1 (Yes)',
  '',
];
const DATES = ['2026-03-02', '2026-01-10', '2025-12-01', '2025-06-30', '2024-02-29', '2026-02-30', '2026-13-01', '2023-02-29'];
const BREAKS = ['\n', '\n', '\n', '\r\n'];

function fill(template: string, rand: () => number): string {
  return template.replace(/\{n\}/g, () => String(Math.floor(rand() * 10))).replace(/\{m\}/g, () => String(1 + Math.floor(rand() * 9)));
}

function line(rand: () => number, n: number): string {
  const r = rand();
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  if (r < 0.05) return '';
  if (r < 0.08) return pick(['continued note', '  indented continuation', 'Patient: 41-year-old Male', '\t']);
  if (r < 0.1) return `[${n}] ${pick(['inner\u2028break', 'lone\rcr', 'x'])} ${fill(pick(BODIES), rand)}`;
  const lead = rand() < 0.05 ? pick([' ', '\t', '\u00a0']) : '';
  const date = rand() < 0.6 ? `(${pick(DATES)}) ` : '';
  return `${lead}[${n}] ${date}${fill(pick(BODIES), rand)}`;
}

/** A chart of about `lines` lines; record numbers mostly ascend, sometimes repeat. */
export function randomChart(rand: () => number, lines: number): string {
  let text = '';
  let n = 1;
  for (let i = 0; i < lines; i++) {
    if (i > 0) text += BREAKS[Math.floor(rand() * BREAKS.length)];
    text += line(rand, n);
    if (rand() < 0.95) n++;
  }
  return text;
}
