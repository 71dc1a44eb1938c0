/**
 * `npm run ingest -- [options] <files or folders>`: PDF / Markdown / HTML → MKU content, written into the
 * configured knowledge store (KNOWLEDGE_STORE, KNOWLEDGE_DB_PATH, … — the hub's own settings) and/or as
 * JSONL into `--out`. Progress goes to stderr (a bar on a TTY, plain lines otherwise); the summary to stdout.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { createRouterClient, type RouterClient } from '../../llm';
import { createEmbedder, type ClosableEmbedder } from '../embedder';
import { knowledgeSettings, raw, readVariable } from '../../config';
import { createKnowledgeStore } from '../store';
import type { KnowledgeStore } from '../store/port';
import { formatDiff } from './diff';
import { ingest, type IngestOptions, type IngestReport } from './index';

const ROOT = path.resolve(__dirname, '../../..');
const DEFAULT_CONCEPTS = path.join(ROOT, 'data/knowledge/demo-concepts.yaml');

export const USAGE = `usage: npm run ingest -- [options] <files or folders>
  --out <dir>            also write the generated JSONL there (sorted, stable bytes)
  --extractor rules|model  MKU extractor (default rules)
  --model <id>           router model id of the model extractor (router at LLM_BASE_URL)
  --dry-run              print what would change; write nothing
  --provenance <file>    provenance file (default: a PROVENANCE.md beside the inputs)
  --concepts <file>      concept vocabulary (default data/knowledge/demo-concepts.yaml)
  --reviewed             mark MKUs reviewed (you attest the source was reviewed; the review gate admits them)
  --no-store             do not write into the configured store (with --out: generate files only)`;

export interface CliArgs { inputs: string[]; out: string | null; extractor: 'rules' | 'model'; model: string | null; dryRun: boolean; provenance: string | null; concepts: string; reviewed: boolean; store: boolean }

export function parseCli(argv: string[]): CliArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' }, extractor: { type: 'string', default: 'rules' }, model: { type: 'string' }, 'dry-run': { type: 'boolean', default: false },
      provenance: { type: 'string' }, concepts: { type: 'string' }, reviewed: { type: 'boolean', default: false }, 'no-store': { type: 'boolean', default: false },
    },
  });
  if (values.extractor !== 'rules' && values.extractor !== 'model') throw new Error(`--extractor must be rules or model, got '${values.extractor}'`);
  if (values.extractor === 'model' && !values.model) throw new Error('--extractor model needs --model <router model id>');
  if (positionals.length === 0) throw new Error('name at least one file or folder to ingest');
  return {
    inputs: positionals, out: values.out ?? null, extractor: values.extractor, model: values.model ?? null, dryRun: values['dry-run'] ?? false,
    provenance: values.provenance ?? null, concepts: values.concepts ?? DEFAULT_CONCEPTS, reviewed: values.reviewed ?? false, store: !values['no-store'],
  };
}

/** A bar on a TTY, one line per file otherwise (logs and CI stay readable). */
function progressReporter(): { onProgress: NonNullable<IngestOptions['onProgress']>; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: 'ingest [{bar}] {value}/{total} {file}', stream: process.stderr }, Presets.shades_classic);
    let started = false;
    return {
      onProgress(e) {
        if (!started) bar.start(e.total, 0, { file: '' });
        started = true;
        bar.update(e.stage === "extract" && !e.file ? e.total : e.done, { file: path.basename(e.file) });
      },
      stop: () => started && bar.stop(),
    };
  }
  return {
    onProgress(e) {
      if (e.file) process.stderr.write(`ingest: ${e.stage} ${e.done + 1}/${e.total} ${path.basename(e.file)}\n`);
    },
    stop() {},
  };
}

export function formatSummary(r: IngestReport, dryRun: boolean): string {
  const rejected = Object.entries(r.rejected).map(([why, n]) => `${n} ${why}`).join(', ') || 'none';
  const lines = [
    `ingest: ${r.files.length} file(s) → ${r.documents} documents, ${r.sections} sections, ${r.chunks} chunks, ${r.mkus} MKUs (${r.safetyCritical} safety-critical), ${r.concepts} concepts, ${r.triggers} TRIGGERS, ${r.crossRefs} CROSS_REF candidates`,
    `  rejected: ${rejected}`,
  ];
  if (r.load) lines.push(`  store: ${r.load.changed} rows changed (${r.load.pruned} MKUs pruned)${r.load.changed === 0 ? ' — already up to date' : ''}`);
  if (dryRun) lines.push(r.diff ? formatDiff(r.diff) : '  dry run: no baseline (no --out content, no store); nothing written');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = parseCli(process.argv.slice(2));
  const settings = knowledgeSettings(process.env, ROOT);
  let router: RouterClient | null = null;
  let store: KnowledgeStore | null = null;
  let embedder: ClosableEmbedder | null = null;
  const progress = progressReporter();
  try {
    if (args.extractor === 'model') {
      const baseUrl = raw(process.env, 'LLM_BASE_URL');
      if (!baseUrl) throw new Error('--extractor model needs the router at LLM_BASE_URL');
      router = createRouterClient({ baseUrl, apiKey: readVariable({ env: process.env, root: ROOT }, 'LLM_API_KEY'), maxConcurrency: 1, maxQueue: 4, connectTimeoutMs: 10_000, idleTimeoutMs: 600_000, discoveryTimeoutMs: 5_000 });
    }
    if (args.store) {
      embedder = createEmbedder(settings.embedder);
      store = await createKnowledgeStore(settings.store, { embedder: { id: embedder.id, dimension: embedder.dimension } });
    }
    const report = await ingest({
      inputs: args.inputs, extractor: args.extractor, model: router && args.model ? { router, id: args.model } : null, vocabularyFile: args.concepts,
      provenanceFile: args.provenance ?? undefined, reviewed: args.reviewed, outDir: args.out, dryRun: args.dryRun, store, embedder, onProgress: progress.onProgress,
    });
    progress.stop();
    process.stdout.write(`${formatSummary(report, args.dryRun)}\n`);
  } finally {
    progress.stop();
    await store?.close();
    await embedder?.close();
    await router?.close();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`ingest failed: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    process.exit(1);
  });
}
