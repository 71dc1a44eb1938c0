/**
 * Shapes of facts-first citation grounding (§7.5 Target, decisions 9 and 16). The model lists
 * facts; every verdict is derived by the hub from those facts, never taken from the model.
 */
import type { Support } from '../../answer';

export type { Support } from '../../answer';

export type FactStatus = 'found' | 'differs' | 'not_found';

export interface CheckedFact {
  fact: string;
  status: FactStatus;
  source_says: string;
}

/** One statement to check against a block of source lines. */
export interface FactCheckItem {
  statement: string;
  sources: string;
}

export interface FactCheckResult {
  support: Support;
  facts: CheckedFact[] | null;
  /** 1-based batch number, null when no model call judged it */
  batch: number | null;
}

export interface BatchRecord {
  batch: number;
  /** 0-based item positions */
  items: number[];
  outcome: 'checked' | 'failed' | 'malformed' | 'overflow';
  error?: string;
}

/** A (claim, cited source set) pair of an Answer or In-Depth, built from references. */
export interface GroundingPair {
  claim: string;
  location: string;
  path: string;
  sourceIndices: number[];
}

export interface GroundingCheck {
  status: 'verified' | 'unsupported' | 'unchecked';
  support: Support;
  claim: string;
  location: string;
  path: string;
  source_indices: number[];
  method: 'model' | 'folded' | 'deterministic_exact' | 'deterministic_temporal' | 'none';
  facts?: CheckedFact[];
  /** For contradicted checks: what the record states (source_says of the differing facts). */
  record_says?: string[];
}
