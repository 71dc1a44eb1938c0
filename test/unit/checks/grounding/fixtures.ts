/** Small builders shared by the grounding tests. */
import type { Reference, ReferenceUsage } from '../../../../server/answer/references';
import type { CheckedFact, FactStatus, GroundingCheck, GroundingPair } from '../../../../server/checks/grounding';

export function resolved(index: number, usage: ReferenceUsage[], extra: Partial<Reference> = {}): Reference {
  return {
    index,
    resolutionStatus: 'resolved',
    date: '2024-05-02',
    sourceText: `record ${index}`,
    usage,
    groundingStatus: 'checking',
    grounded: null,
    ...extra,
  };
}

export function unresolved(index: number, usage: ReferenceUsage[]): Reference {
  return { index, resolutionStatus: 'unresolved', usage, groundingStatus: 'unchecked', grounded: null };
}

export function answer(text: string): ReferenceUsage {
  return { location: 'answer', text };
}

export function fact(status: FactStatus, sourceSays = ''): CheckedFact {
  return { fact: `fact ${status}`, status, source_says: sourceSays };
}

export function pair(claim: string, sourceIndices: number[], path = '', location = 'answer'): GroundingPair {
  return { claim, location, path, sourceIndices };
}

export function check(support: GroundingCheck['support'], sourceIndices: number[], claim = 'c'): GroundingCheck {
  const status = support === 'supported' ? 'verified' : support === 'contradicted' ? 'unsupported' : 'unchecked';
  return { status, support, claim, location: 'answer', path: '', source_indices: sourceIndices, method: 'model' };
}
