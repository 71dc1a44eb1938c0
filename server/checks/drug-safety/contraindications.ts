/**
 * Contraindications (§9.4): rule contraindications (a rule's allergy or condition token found in the
 * patient's allergens or conditions) and class contraindications — a recorded allergen that resolves
 * to a package entry which is the drug itself, shares its ATC subgroup, or shares a cross-reactivity
 * group with it.
 */
import { classRelation, entryForName } from './matching';
import type { CrossReactivityGroup, DrugEntry, PatientExposure, SafetyWarning } from './types';

export function ruleContraindications(entry: DrugEntry, exposure: Pick<PatientExposure, 'allergies' | 'conditions'>): SafetyWarning[] {
  const out: SafetyWarning[] = [];
  for (const rule of entry.contraindications) {
    const tokens = rule.type === 'allergy' ? exposure.allergies : exposure.conditions;
    if (!tokens.some((t) => t.includes(rule.token))) continue;
    out.push({ type: 'contraindication', drug: entry.name, detail: `contraindicated by active ${rule.type}${rule.note ? `: ${rule.note}` : ''}`, severity: null });
  }
  return out;
}

export function classContraindications(entry: DrugEntry, allergies: readonly string[], entries: readonly DrugEntry[], groups: readonly CrossReactivityGroup[]): SafetyWarning[] {
  const out: SafetyWarning[] = [];
  for (const allergen of allergies) {
    const other = entryForName(allergen, entries);
    if (!other) continue;
    if (other.id === entry.id) {
      out.push({ type: 'contraindication', drug: entry.name, detail: `the patient has a recorded allergy to ${other.name}`, severity: null });
      continue;
    }
    const relation = classRelation(entry.atcCodes, other.atcCodes, groups);
    if (!relation) continue;
    const kind = relation.kind === 'subgroup' ? 'ATC class' : 'cross-reactivity group';
    out.push({ type: 'contraindication', drug: entry.name, detail: `same ${kind} (${relation.name}) as the patient's allergy to ${other.name} — possible cross-reactivity`, severity: null });
  }
  return out;
}
