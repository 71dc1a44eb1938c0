/**
 * Interactions with the patient's active orders (§9.4, §9.6): rule interactions (a rule token found in
 * an order's name, or the order's exact ATC code) with the source severity kept and a severity floor
 * applied, and class interactions — duplicate therapy: another substance of the same ATC subgroup or
 * cross-reactivity group. An order of the drug itself is never a duplicate of it.
 */
import { classRelation } from './matching';
import type { ActiveMedication, CrossReactivityGroup, DrugEntry, SafetyWarning, Severity, SourceSeverity } from './types';

const RANK: Record<Severity, number> = { minor: 1, moderate: 2, major: 3 };

/**
 * Whether a rule's severity passes the floor: `unknown`-rated rules are omitted, unrated curated
 * rules (null) stay eligible at any floor, rated ones need at least the floor.
 */
export function passesSeverityFloor(severity: SourceSeverity | null, floor: Severity): boolean {
  if (severity === null) return true;
  if (severity === 'unknown') return false;
  return RANK[severity] >= RANK[floor];
}

function isSameDrug(entry: DrugEntry, med: ActiveMedication): boolean {
  return med.entryId === entry.id || med.atcCodes.some((c) => entry.atcCodes.includes(c));
}

export function ruleInteractions(entry: DrugEntry, medications: readonly ActiveMedication[], floor: Severity): SafetyWarning[] {
  const out: SafetyWarning[] = [];
  for (const rule of entry.interactions) {
    if (!passesSeverityFloor(rule.severity, floor)) continue;
    const hit = medications.find(
      (m) => !isSameDrug(entry, m) && ((rule.token !== null && m.name.toLowerCase().includes(rule.token)) || (rule.atc !== null && m.atcCodes.includes(rule.atc))),
    );
    if (!hit) continue;
    const what = rule.token ?? rule.atc!;
    out.push({ type: 'interaction', drug: entry.name, detail: `interacts with active order ${what}${rule.note ? ` — ${rule.note}` : ''}`, severity: rule.severity });
  }
  return out;
}

/** Duplicate therapy: `same ATC class (<sub>) as active order <name or code> — possible duplicate therapy`. */
export function classInteractions(entry: DrugEntry, medications: readonly ActiveMedication[], entries: readonly DrugEntry[], groups: readonly CrossReactivityGroup[]): SafetyWarning[] {
  const out: SafetyWarning[] = [];
  for (const med of medications) {
    if (isSameDrug(entry, med) || med.atcCodes.length === 0) continue;
    const relation = classRelation(entry.atcCodes, med.atcCodes, groups);
    if (!relation) continue;
    const named = med.entryId === null ? med.atcCodes[0] : (entries.find((e) => e.id === med.entryId)?.name ?? med.atcCodes[0]);
    const kind = relation.kind === 'subgroup' ? 'ATC class' : 'cross-reactivity group';
    out.push({ type: 'interaction', drug: entry.name, detail: `same ${kind} (${relation.name}) as active order ${named} — possible duplicate therapy`, severity: null });
  }
  return out;
}
