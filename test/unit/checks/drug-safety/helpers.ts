/** Shared data of the drug-safety unit tests: the approved fixture package and an exposure builder. */
import path from 'node:path';
import { loadSources } from '../../../../server/checks/drug-safety/package-load';
import type { ActiveMedication, DrugPackage, PatientExposure } from '../../../../server/checks/drug-safety/types';

export const FIXTURES = path.resolve(__dirname, '../../../fixtures/drug-safety');
export const APPROVED = path.join(FIXTURES, 'approved-package.json');
export const GROUPS = path.join(FIXTURES, 'cross-reactivity.json');

export function approvedPackage(): DrugPackage {
  const { pkg } = loadSources({ format: 'json', datasetPath: APPROVED, crossReactivityPath: GROUPS });
  if (!pkg) throw new Error('fixture package did not load');
  return pkg;
}

export function entry(pkg: DrugPackage, id: string) {
  const found = pkg.entries.find((e) => e.id === id);
  if (!found) throw new Error(`no entry ${id}`);
  return found;
}

/** A medication mapped the way exposure maps it (entry id and codes), or unmapped. */
export function med(pkg: DrugPackage, name: string, id: string | null = null, atc: string[] = []): ActiveMedication {
  const e = id ? entry(pkg, id) : null;
  return { name, entryId: e?.id ?? null, atcCodes: e ? e.atcCodes : atc };
}

export function exposure(over: Partial<PatientExposure> = {}): PatientExposure {
  return { origin: 'structured', complete: true, ageYears: 40, weightKg: null, medications: [], allergies: [], conditions: [], ...over };
}
