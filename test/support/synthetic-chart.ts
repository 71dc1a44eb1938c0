/**
 * A synthetic chart of `n` numbered records (weights, orders, visits, blood pressure, programme
 * states, return visits, notes; one penicillin allergy at [18]), three records a day back from
 * 2026-03-01. Shared by benchmarks and tests that need a realistically sized chart.
 */
export function syntheticChart(n: number): string {
  const kinds = [
    (i: number) => `Finding — Weight (kg): ${55 + (i % 30)} kg`,
    (i: number) => `Drug order: ${['Lisinopril 10 mg', 'Metformin 500 mg', 'Amoxicillin 250 mg', 'Nevirapine 200 mg'][i % 4]}. Action: NEW. Urgency: ROUTINE`,
    (i: number) => `Encounter: Adult Visit at Clinic ${String.fromCharCode(65 + (i % 5))}`,
    (i: number) => `Finding — Blood pressure: ${110 + (i % 40)}/${70 + (i % 20)} mmHg`,
    (i: number) => `Program: HIV care enrollment state ${i % 3}`,
    (i: number) => `Assessment — Return visit date: 2026-0${1 + (i % 9)}-1${i % 10}`,
    (i: number) => `Note: counselling session ${i} covered adherence and nutrition topics`,
  ];
  const lines = ['Patient: 41-year-old Male'];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2026, 2, 1) - Math.floor(i / 3) * 86400000).toISOString().slice(0, 10);
    lines.push(`[${i + 1}] (${day}) ${i === 17 ? 'Allergy: Penicillin. Reaction: rash' : kinds[i % kinds.length](i)}`);
  }
  return lines.join('\n');
}
