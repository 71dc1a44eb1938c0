/**
 * Jest setup file (jest.config.js `setupFilesAfterEnv`): records every envelope an in-process hub
 * writes in a test file and fails the file when one does not match the envelope schemas.
 * ENVELOPE_SCHEMA_COUNTS=<file> appends one JSON line of counts per test file that saw any.
 */
import fs from 'node:fs';
import { recordedEnvelopes, recordEnvelopes } from './envelope-recorder';

recordEnvelopes();

afterAll(() => {
  const { counts, violations } = recordedEnvelopes();
  const out = process.env.ENVELOPE_SCHEMA_COUNTS;
  if (out && Object.values(counts).some((n) => n > 0)) fs.appendFileSync(out, `${JSON.stringify({ file: expect.getState().testPath, ...counts, violations: violations.length })}\n`);
  if (violations.length > 0) {
    throw new Error(`${violations.length} envelope(s) do not match server/answer/envelope-schema.ts:\n${[...new Set(violations)].slice(0, 40).join('\n')}`);
  }
});
