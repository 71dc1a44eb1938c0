/**
 * `node -r scripts/register-ts.js test/support/pdf-page-texts.ts <pdf…>`: prints `{basename: [page text…]}` as
 * JSON, through the ingest's own PDF reader (a child process: pdf.js cannot load inside jest's VM).
 */
import path from 'node:path';
import { pdfPageTexts } from '../../server/knowledge/ingest/pdf';

async function main(): Promise<void> {
  const out: Record<string, string[]> = {};
  for (const f of process.argv.slice(2)) out[path.basename(f)] = await pdfPageTexts(f);
  process.stdout.write(JSON.stringify(out));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
