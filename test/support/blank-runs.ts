/**
 * Long blank runs for the linear-time tests: 50,000 characters of one kind each. A quadratic regex
 * takes seconds on one of them, so a test that merely finishes with the right result pins linearity
 * without timing anything.
 */
export const RUN_LENGTH = 50_000;

export interface BlankRun {
  name: string;
  run: string;
  /** The run holds a line terminator (`.` and `$` stop there). */
  breaksLines: boolean;
}

export const BLANK_RUNS: readonly BlankRun[] = [
  { name: 'spaces', run: ' '.repeat(RUN_LENGTH), breaksLines: false },
  { name: 'tabs', run: '\t'.repeat(RUN_LENGTH), breaksLines: false },
  { name: 'NBSP', run: '\u00a0'.repeat(RUN_LENGTH), breaksLines: false },
  { name: 'U+2028', run: '\u2028'.repeat(RUN_LENGTH), breaksLines: true },
  { name: 'CRLF', run: '\r\n'.repeat(RUN_LENGTH / 2), breaksLines: true },
];

/** `test.each` rows: `[name, run]`. */
export const RUN_ROWS: ReadonlyArray<[string, BlankRun]> = BLANK_RUNS.map((r) => [r.name, r]);
