/**
 * The patient context sent with a `/v2/context` call (knowledge-layer.md §6.4), read from the primary
 * ledger by the same reader drug safety uses (`buildExposure`: active medications, allergies, active
 * conditions, age), plus sex where a patient line or structured patient record states it. Nothing here
 * is logged: the caller traces counts only.
 */
import { buildExposure } from '../../checks/drug-safety';
import { trimEndChars } from '../../text-scan';
import type { PatientContext } from '../pipeline/types';
import type { EvidenceLedger, EvidenceRecord } from '../../context';

/** Each list is bounded: a chart of thousands of allergies must not make the knowledge call unbounded. */
export const PATIENT_LIST_MAX = 50;

const SEX_WORD = /\b(male|female|man|woman|boy|girl)\b/i;
const SEX_OF: Record<string, 'male' | 'female'> = { male: 'male', man: 'male', boy: 'male', female: 'female', woman: 'female', girl: 'female' };

function sexFromText(text: string): 'male' | 'female' | null {
  const m = SEX_WORD.exec(text);
  return m ? SEX_OF[m[1].toLowerCase()] : null;
}

function sexFromRecord(r: EvidenceRecord): 'male' | 'female' | null {
  const meta = r.raw?.metadata;
  if (String(r.raw?.resourceType ?? '').toLowerCase() === 'patient' && meta && typeof meta === 'object') {
    const g = String((meta as Record<string, unknown>).gender ?? (meta as Record<string, unknown>).sex ?? '').trim().toUpperCase();
    if (g === 'M' || g === 'MALE') return 'male';
    if (g === 'F' || g === 'FEMALE') return 'female';
  }
  return /^patient\b/i.test(r.text.trim()) ? sexFromText(r.text) : null;
}

/** `atrial fibrillation, status: active` → `atrial fibrillation` (a scan, not a backtracking regex). */
function withoutStatus(condition: string): string {
  const at = condition.toLowerCase().lastIndexOf('status:');
  if (at <= 0) return condition;
  return trimEndChars(condition.slice(0, at).trimEnd(), ',').trimEnd();
}

function unique(values: Iterable<string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    const t = v.trim();
    const key = t.toLowerCase();
    if (t === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(t);
    if (out.length >= PATIENT_LIST_MAX) break;
  }
  return out;
}

/** `referenceDate` (YYYY-MM-DD) only turns a birth date into an age. */
export function patientContext(ledger: EvidenceLedger | undefined, referenceDate: string): PatientContext {
  if (!ledger) return {};
  const exposure = buildExposure({ records: ledger.records, preamble: ledger.preamble, referenceDate, entries: [], weightConceptUuid: null, weightMaxAgeDays: 90 });
  const out: PatientContext = {};
  const treatments = unique(exposure.medications.map((m) => m.name));
  if (treatments.length) out.current_treatments = treatments;
  const allergies = unique(exposure.allergies);
  if (allergies.length) out.allergies = allergies;
  // `Condition: x, status: active` is read up to its sentence stop; the status is not part of the concept.
  const problems = unique(exposure.conditions.map(withoutStatus));
  if (problems.length) out.active_problems = problems;
  if (exposure.ageYears !== null && exposure.ageYears <= 150) out.age = exposure.ageYears;
  const sex = sexFromText(ledger.preamble) ?? ledger.records.map(sexFromRecord).find((s) => s !== null) ?? null;
  if (sex) out.sex = sex;
  return out;
}
