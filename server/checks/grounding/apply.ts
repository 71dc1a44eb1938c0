/**
 * Writes grounding checks onto references (§7.5 step 4, decision 16): every record a pair cites
 * gets the pair's check, and the reference's aggregate is recomputed over ALL its checks so a
 * later call (e.g. In-Depth after Answer) adds to, and never replaces, earlier evidence.
 */
import { cloneReference, groundingFromChecks, type Reference } from '../../answer';
import type { CheckedFact, GroundingCheck, GroundingPair, Support } from './types';
import { statusOfSupport } from './verdicts';

export function checkOf(
  pair: GroundingPair,
  result: { support: Support; facts: CheckedFact[] | null },
  method: GroundingCheck['method'],
): GroundingCheck {
  const check: GroundingCheck = {
    status: statusOfSupport(result.support),
    support: result.support,
    claim: pair.claim,
    location: pair.location,
    path: pair.path,
    source_indices: [...pair.sourceIndices],
    method,
  };
  if (result.facts !== null) check.facts = result.facts.map((f) => ({ ...f }));
  if (result.support === 'contradicted') {
    // The red mark names what the record states (decision 16); present even if the checker left it blank.
    check.record_says = (result.facts ?? []).filter((f) => f.status === 'differs' && f.source_says.trim() !== '').map((f) => f.source_says);
  }
  return check;
}

function copyCheck(check: GroundingCheck): GroundingCheck {
  const out: GroundingCheck = { ...check, source_indices: [...check.source_indices] };
  if (check.facts) out.facts = check.facts.map((f) => ({ ...f }));
  if (check.record_says) out.record_says = [...check.record_says];
  return out;
}

/** Indices of a stored check, when it has the GroundingCheck shape (older checks are `unknown`). */
function indicesOf(check: unknown): number[] {
  const v = check && typeof check === 'object' ? (check as Record<string, unknown>).source_indices : undefined;
  return Array.isArray(v) ? v.filter((i): i is number => typeof i === 'number') : [];
}

export function applyGroundingChecks(
  refs: readonly Reference[],
  checks: ReadonlyArray<{ pair: GroundingPair; check: GroundingCheck }>,
): Reference[] {
  return refs.map((input) => {
    const ref = cloneReference(input);
    if (ref.resolutionStatus !== 'resolved') return ref; // unresolved pass through untouched (§7.5)
    const own = checks.filter((c) => c.pair.sourceIndices.includes(ref.index));
    if (own.length === 0) return ref;

    const all: unknown[] = [...(ref.groundingChecks ?? []), ...own.map((c) => copyCheck(c.check))];
    ref.groundingChecks = all;
    const aggregate = groundingFromChecks(all);
    ref.groundingStatus = aggregate.groundingStatus;
    ref.grounded = aggregate.grounded;
    if (aggregate.support) ref.support = aggregate.support;

    // Scope widens to the union of every multi-source set this record was judged in, including
    // earlier calls, as when Answer and In-Depth share a record (§7.5).
    const group = new Set<number>(ref.groundingScope === 'source_set' ? (ref.groundingGroup ?? []) : []);
    for (const indices of [...all.map(indicesOf), ...own.map((c) => c.pair.sourceIndices)]) {
      if (new Set(indices).size > 1) indices.forEach((i) => group.add(i));
    }
    if (group.size > 0) {
      ref.groundingScope = 'source_set';
      ref.groundingGroup = [...group].sort((a, b) => a - b);
    } else {
      ref.groundingScope = 'record';
      delete ref.groundingGroup;
    }
    return ref;
  });
}

/** Count of checks per support value, for the trace. */
export function summariseSupport(checks: readonly GroundingCheck[]): Record<Support, number> {
  const out: Record<Support, number> = { supported: 0, contradicted: 0, not_addressed: 0, unchecked: 0 };
  for (const c of checks) out[c.support] += 1;
  return out;
}
