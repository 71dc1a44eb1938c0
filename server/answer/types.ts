/**
 * The Answer as the hub holds it: the writer's draft and its table blocks (§3.9), and a confidence
 * level (§7.8). Low on purpose: checks, the engine, the envelope and the trace all read these.
 */

export interface TableCell {
  text: string;
  refs: number[];
}
export interface TableBlock {
  kind: 'table';
  title: string;
  columns: Array<{ key: string; label: string }>;
  rows: Array<{ cells: Record<string, TableCell> }>;
}

/** An Answer as the writer produced it, or as checks left it. */
export interface AnswerDraft {
  answer: string;
  citations: number[];
  /** The writer's own `citations` array (before explicit markers replace it, §7.2). */
  declared: number[];
  blocks: TableBlock[];
  /** The writer's blocks as sent, for the table contract (which repairs or withholds, never drops silently). */
  rawBlocks: unknown[];
  /** false when the model output was not the JSON object asked for (a handled case, decision 11). */
  structured: boolean;
}

export interface ConfidenceLevel {
  level: 'green' | 'yellow' | 'red';
  note: string;
  [key: string]: unknown;
}
