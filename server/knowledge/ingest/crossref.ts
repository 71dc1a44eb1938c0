/**
 * CROSS_REF candidates between documents, deterministic and conservative: two safety-critical MKUs of
 * different documents are linked when each one names the other document's drug (or a broader class of it,
 * e.g. "antibiotic" for amoxicillin, "anticoagulants" for warfarin) — the same interaction stated by both
 * labels. The stance is always PARTIAL (both address the same drug pair; no rule can tell agreement from a
 * nuance), with a note saying it is an unreviewed ingest candidate. One edge per pair, from the smaller id.
 */
import type { VocabularyConcept } from './vocabulary';

/** The concept and every broader class above it (transitively). */
function withAncestors(id: string, broader: Map<string, string[]>, seen = new Set<string>()): Set<string> {
  if (seen.has(id)) return seen;
  seen.add(id);
  for (const b of broader.get(id) ?? []) withAncestors(b, broader, seen);
  return seen;
}

export function crossRefCandidates(
  mkus: Map<string, { docId: string; concepts: string[]; safety: boolean }>,
  docDrugs: Map<string, string[]>,
  vocabulary: VocabularyConcept[],
): Array<Record<string, unknown>> {
  const broader = new Map(vocabulary.map((c) => [c.id, c.broader]));
  const label = (ids: string[]) => ids.map((id) => vocabulary.find((c) => c.id === id)?.label ?? id).join('/');
  const names = (mkuConcepts: string[], drugs: string[]) => {
    const family = new Set(drugs.flatMap((d) => [...withAncestors(d, broader)]));
    return mkuConcepts.some((c) => family.has(c));
  };
  const safety = [...mkus.entries()].filter(([, m]) => m.safety).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const edges: Array<Record<string, unknown>> = [];
  for (let i = 0; i < safety.length; i++) {
    for (let j = i + 1; j < safety.length; j++) {
      const [idA, a] = safety[i];
      const [idB, b] = safety[j];
      if (a.docId === b.docId) continue;
      const drugsA = docDrugs.get(a.docId) ?? [];
      const drugsB = docDrugs.get(b.docId) ?? [];
      if (!drugsA.length || !drugsB.length || !names(a.concepts, drugsB) || !names(b.concepts, drugsA)) continue;
      edges.push({ src: idA, rel: 'CROSS_REF', dst: idB, props: { stance: 'PARTIAL', note: `ingest candidate (unreviewed): both labels state the ${label(drugsA)}–${label(drugsB)} interaction` } });
    }
  }
  return edges;
}
