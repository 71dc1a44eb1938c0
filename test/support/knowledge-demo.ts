/** The warfarin patient of the knowledge-base acceptance case (tests and bench/knowledge-source.ts share it). */
export const WARFARIN_CHART = [
  'Patient records (most recent first):',
  'Patient: 70-year-old Male',
  '[1] (2026-02-01) Medication: Warfarin 5 mg tablet',
  '[2] (2026-01-15) Condition: atrial fibrillation, status: active',
  '[3] (2026-01-15) Finding — Weight (kg): 80 kg',
].join('\n');

/** A question about an antibiotic for that patient. */
export const ANTIBIOTIC_QUESTION = 'Can I start amoxicillin for his sinusitis?';
