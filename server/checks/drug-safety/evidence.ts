/**
 * Drug-reference evidence (§9.3): which package entries join the ledger for a question, and the text
 * of each record. The question's drugs come first, then the patient's active orders related to one of
 * them (same ATC subgroup or a shared cross-reactivity group); a question naming no drug adds nothing.
 * Rendered parts are skipped when empty, so no `null` or empty clause reaches a prompt.
 */
import { classRelation, entriesNamedIn } from './matching';
import { bandFor } from './overdose';
import type { DrugEntry, DrugPackage, PatientExposure } from './types';

export interface DrugReference {
  entryId: string;
  name: string;
  text: string;
  /** Named in the question (the reference may not be budgeted away, defect §13.1 #2). */
  named: boolean;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}

function dosing(entry: DrugEntry, ageYears: number | null): string | null {
  const band = bandFor(entry, ageYears);
  if (!band) return null;
  const perKg = band.mgPerKgMin !== null && band.mgPerKgMax !== null ? `${fmt(band.mgPerKgMin)}-${fmt(band.mgPerKgMax)} mg/kg per dose` : band.mgPerKgMax !== null ? `up to ${fmt(band.mgPerKgMax)} mg/kg per dose` : null;
  const max = band.maxDailyDoseMg > 0 ? `maximum ${fmt(band.maxDailyDoseMg)} mg/day` : null;
  const head = `Dosing for ages ${band.minYears}-${band.maxYears}: `;
  if (max === null) return `${head}${perKg ? `${perKg} ` : ''}(no pediatric daily maximum published for this age — consult a dosing reference).`;
  return `${head}${[perKg, max].filter(Boolean).join(', ')}.`;
}

/** `Drug reference — <Name> (<class>; ATC <codes>). Dosing … Contraindicated with: … Interactions: … Warnings: … Source: ….` */
export function drugReferenceText(entry: DrugEntry, ageYears: number | null): string {
  const about = [entry.drugClass, entry.atcCodes.length ? `ATC ${entry.atcCodes.join(', ')}` : null].filter(Boolean).join('; ');
  const parts = [`Drug reference — ${entry.name}${about ? ` (${about})` : ''}.`];
  const dose = dosing(entry, ageYears);
  if (dose) parts.push(dose);
  if (entry.contraindications.length) parts.push(`Contraindicated with: ${entry.contraindications.map((c) => `${c.type} ${c.token}${c.note ? ` (${c.note})` : ''}`).join('; ')}.`);
  if (entry.interactions.length) parts.push(`Interactions: ${entry.interactions.map((r) => `${r.token ?? r.atc}${r.note ? ` (${r.note})` : ''}`).join('; ')}.`);
  if (entry.warnings.length) parts.push(`Warnings: ${entry.warnings.join('; ')}.`);
  if (entry.source) parts.push(`Source: ${entry.source}.`);
  return parts.join(' ');
}

/** The references to append for a question, question drugs first. */
export function drugReferences(question: string, exposure: PatientExposure, pkg: Pick<DrugPackage, 'entries' | 'groups'>): DrugReference[] {
  const named = entriesNamedIn(question, pkg.entries);
  if (named.length === 0) return [];
  const chosen = new Map<string, { entry: DrugEntry; named: boolean }>(named.map((e) => [e.id, { entry: e, named: true }]));
  for (const med of exposure.medications) {
    const entry = med.entryId === null ? null : pkg.entries.find((e) => e.id === med.entryId);
    if (!entry || chosen.has(entry.id)) continue;
    if (named.some((q) => classRelation(q.atcCodes, entry.atcCodes, pkg.groups) !== null)) chosen.set(entry.id, { entry, named: false });
  }
  return [...chosen.values()].map(({ entry, named: isNamed }) => ({ entryId: entry.id, name: entry.name, text: drugReferenceText(entry, exposure.ageYears), named: isNamed }));
}
