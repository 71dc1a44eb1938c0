/**
 * Stage 4, the out-of-band safety sweep (§1.3): on patient concepts alone, every safety-critical MKU they
 * TRIGGER is added whatever its rank, listed in `safety_items` and never dropped — also in
 * `mode: fallback_only`. Conflicts are deterministic: a patient allergy or treatment concept that TRIGGERS
 * a safety-critical MKU yields one `MkuConflict` naming the fact — only a concept the fact *names* (a
 * lexical match, not a vector neighbour) and only a direct TRIGGERS edge, so a conflict never rests on a
 * similarity guess; the sweep itself stays wider (recall first).
 */
import type { KnowledgeStore, MkuHit } from '../store/port';
import type { PatientFact } from './concepts';
import type { MkuConflict } from './types';

export async function safetySweep(store: KnowledgeStore, patientConceptIds: string[]): Promise<MkuHit[]> {
  if (patientConceptIds.length === 0) return [];
  const hits = await store.safetyMkusForConcepts(patientConceptIds);
  const seen = new Map<string, MkuHit>();
  for (const h of hits) {
    // The store promises safety-critical MKUs; the check keeps a store defect from widening the sweep.
    if (!h.mku.safety_critical) continue;
    const prior = seen.get(h.mku.id);
    seen.set(h.mku.id, prior ? { ...prior, concepts: [...new Set([...(prior.concepts ?? []), ...(h.concepts ?? [])])] } : h);
  }
  return [...seen.values()].sort((a, b) => (a.mku.id < b.mku.id ? -1 : a.mku.id > b.mku.id ? 1 : 0));
}

/** Conflict wording follows the MKU's language (Locus's French by default; the English demo labels read English). */
const FACT_LABEL: Record<string, Record<string, string>> = {
  fr: { allergy: 'Allergie du patient', treatment: 'Traitement en cours' },
  en: { allergy: 'Patient allergy', treatment: 'Current treatment' },
};

function conflictText(lang: string, label: string, fact: string, directive: string): string {
  return lang === 'en' ? `${label} "${fact}": ${directive}` : `${label} « ${fact} » : ${directive}`;
}

/**
 * `direct`: for each MKU, the named patient concepts that TRIGGER it directly (a depth-0 walk from those
 * concepts), so a conflict never comes from a graph hop or a vector neighbour.
 */
export function safetyConflicts(hits: MkuHit[], factsByConcept: Map<string, PatientFact[]>, direct: Map<string, string[]>): MkuConflict[] {
  const out: MkuConflict[] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    for (const cid of direct.get(h.mku.id) ?? []) {
      for (const fact of factsByConcept.get(cid) ?? []) {
        const lang = h.mku.lang === 'en' ? 'en' : 'fr';
        const label = FACT_LABEL[lang][fact.kind];
        const key = `${h.mku.id}\u0000${fact.text}`;
        if (!label || seen.has(key)) continue;
        seen.add(key);
        out.push({ description: conflictText(lang, label, fact.text, h.mku.directive), patient_factor: fact.text, mku_id: h.mku.id });
      }
    }
  }
  return out;
}
