/**
 * Overdose (§9.4): a stated dose against the entry's age band — the daily maximum first, then, with a
 * fresh weight, the per-dose mg/kg maximum. One overdose warning per drug at most (the daily one wins
 * when both are exceeded). Without an age, or without a band for it, stated doses cannot be checked:
 * that is reported (the dose check is then incomplete), never passed silently.
 */
import type { StatedDose } from './dose';
import type { AgeBand, DrugEntry, SafetyWarning } from './types';

export type OverdoseOutcome =
  | { kind: 'none' }
  | { kind: 'warning'; warning: SafetyWarning }
  | { kind: 'unchecked'; reason: 'age_unknown' | 'no_age_band' };

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 10) / 10);
}

export function bandFor(entry: DrugEntry, ageYears: number | null): AgeBand | null {
  if (ageYears === null) return null;
  return entry.ageBands.find((b) => ageYears >= b.minYears && ageYears <= b.maxYears) ?? null;
}

export function checkOverdose(entry: DrugEntry, doses: readonly StatedDose[], patient: { ageYears: number | null; weightKg: number | null }): OverdoseOutcome {
  if (doses.length === 0) return { kind: 'none' };
  if (patient.ageYears === null) return { kind: 'unchecked', reason: 'age_unknown' };
  const band = bandFor(entry, patient.ageYears);
  if (!band) return { kind: 'unchecked', reason: 'no_age_band' };
  const ages = `${band.minYears}-${band.maxYears}`;
  if (band.maxDailyDoseMg > 0) {
    for (const d of doses) {
      const daily = d.mg * d.perDay;
      if (daily > band.maxDailyDoseMg) {
        const detail = `stated dose ~${fmt(Math.round(daily))} mg/day exceeds the ${fmt(band.maxDailyDoseMg)} mg/day maximum for ages ${ages}`;
        return { kind: 'warning', warning: { type: 'overdose', drug: entry.name, detail, severity: null } };
      }
    }
  }
  if (patient.weightKg !== null && band.mgPerKgMax !== null && band.mgPerKgMax > 0) {
    const limit = band.mgPerKgMax * patient.weightKg;
    const over = doses.find((d) => !d.dailyAmount && d.mg > limit);
    if (over) {
      const detail = `stated dose ${fmt(over.mg)} mg exceeds the ${fmt(band.mgPerKgMax)} mg/kg per-dose maximum for the patient's ${fmt(patient.weightKg)} kg weight`;
      return { kind: 'warning', warning: { type: 'overdose', drug: entry.name, detail, severity: null } };
    }
  }
  return { kind: 'none' };
}
