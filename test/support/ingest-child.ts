/**
 * Runs a TypeScript entry point (the ingest CLI, the PDF page-text dumper) in a child Node process through
 * scripts/register-ts.js: pdf.js (inside unpdf) needs a real dynamic import, which jest's VM cannot give.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const INGEST_MAIN = path.join(ROOT, 'server/knowledge/ingest/main.ts');
export const PAGE_TEXTS = path.join(ROOT, 'test/support/pdf-page-texts.ts');

export interface ChildResult { code: number; stdout: string; stderr: string }

export function runTs(entry: string, args: string[], env: Record<string, string> = {}): Promise<ChildResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-r', path.join(ROOT, 'scripts/register-ts.js'), entry, ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, maxBuffer: 64 * 1024 * 1024,
    }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

/** Each PDF's page texts (file basename → pages), as the ingest's own reader extracts them. */
export async function pdfPageTexts(files: string[]): Promise<Record<string, string[]>> {
  const r = await runTs(PAGE_TEXTS, files);
  if (r.code !== 0) throw new Error(`pdf-page-texts failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string[]>;
}
