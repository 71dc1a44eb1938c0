/**
 * The post-answer checks of one turn (§9.4): the drugs in play are the package entries named in the
 * question or the Answer (deduplicated by id); for each, contraindications, interactions, duplicate
 * therapy and overdose. Warnings are deduplicated (two aliases of one allergen give one warning).
 */
import { classContraindications, ruleContraindications } from './contraindications';
import { statedDoses } from './dose';
import { classInteractions, ruleInteractions } from './interactions';
import { entriesNamedIn } from './matching';
import { checkOverdose } from './overdose';
import type { DrugPackage, PatientExposure, SafetyWarning, Severity } from './types';

export interface CheckInput {
  pkg: Pick<DrugPackage, 'entries' | 'groups'>;
  exposure: PatientExposure;
  question: string;
  answer: string;
  minInteractionSeverity: Severity;
}

export interface CheckOutcome {
  warnings: SafetyWarning[];
  /** Entry ids of the drugs in play, question first. */
  drugsInPlay: string[];
  /** Stated doses that could not be checked (no age, no band for it): the dose check is incomplete. */
  doseUnchecked: Array<{ drug: string; reason: 'age_unknown' | 'no_age_band' }>;
}

export function runChecks(input: CheckInput): CheckOutcome {
  const { pkg, exposure } = input;
  const byId = new Map(entriesNamedIn(input.question, pkg.entries).map((e) => [e.id, e]));
  for (const e of entriesNamedIn(input.answer, pkg.entries)) if (!byId.has(e.id)) byId.set(e.id, e);
  const inPlay = [...byId.values()];
  const warnings: SafetyWarning[] = [];
  const doseUnchecked: CheckOutcome['doseUnchecked'] = [];
  for (const entry of inPlay) {
    warnings.push(...ruleContraindications(entry, exposure));
    warnings.push(...classContraindications(entry, exposure.allergies, pkg.entries, pkg.groups));
    warnings.push(...ruleInteractions(entry, exposure.medications, input.minInteractionSeverity));
    warnings.push(...classInteractions(entry, exposure.medications, pkg.entries, pkg.groups));
    const overdose = checkOverdose(entry, statedDoses(input.answer, entry, inPlay), exposure);
    if (overdose.kind === 'warning') warnings.push(overdose.warning);
    if (overdose.kind === 'unchecked') doseUnchecked.push({ drug: entry.name, reason: overdose.reason });
  }
  return { warnings: dedupeWarnings(warnings), drugsInPlay: inPlay.map((e) => e.id), doseUnchecked };
}

export function dedupeWarnings(warnings: readonly SafetyWarning[]): SafetyWarning[] {
  const seen = new Set<string>();
  return warnings.filter((w) => {
    const key = `${w.type}\u0000${w.drug}\u0000${w.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
