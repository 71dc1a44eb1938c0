/**
 * The ingest pipeline's one door: `ingest(options)` reads PDF / Markdown / HTML files (or folders of them),
 * builds documents → sections → chunks → MKUs (rules or model extractor) → concepts, TRIGGERS and
 * CROSS_REF candidates as the loader's JSONL records, optionally writes them to `outDir` (stable bytes),
 * and writes them into the store through the loader's own path (validate → assemble → writePlan), so
 * ingesting is exactly a start-up load of the generated content. Re-ingesting unchanged files reports
 * `changed: 0`. `dryRun` writes nothing anywhere and reports what would change.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RouterClient } from '../../llm';
import type { Embedder } from '../embedder/port';
import { writePlan, type LoadReport } from '../loader';
import { assembleContent } from '../loader/assemble';
import { ContentError, type ParsedContent } from '../loader/read-files';
import { CONTENT_KINDS, validateLine } from '../loader/schemas';
import type { KnowledgeStore } from '../store/port';
import { diffAgainstFolder, diffAgainstStore, hasJsonl, type IngestDiff } from './diff';
import { readHtml, readMarkdown } from './markup';
import { modelExtract } from './model-extractor';
import { readPdf } from './pdf';
import { docKey, readProvenance, type DocProvenance } from './provenance';
import { buildRecords, jsonlBytes, type IngestedDoc, type Records } from './records';
import { rulesExtract } from './rules';
import { buildSections } from './structure';
import type { SourceDoc, SourceFormat } from './types';
import { readVocabulary } from './vocabulary';

export interface IngestOptions {
  inputs: string[];
  extractor: 'rules' | 'model';
  /** Required for the model extractor. */
  model?: { router: RouterClient; id: string } | null;
  vocabularyFile: string;
  /** null: no provenance; undefined: a PROVENANCE.md beside the inputs, when there is one. */
  provenanceFile?: string | null;
  /** Mark every MKU `reviewed` (the operator attests the source was reviewed; the review gate admits them). */
  reviewed: boolean;
  lang?: string;
  outDir?: string | null;
  dryRun?: boolean;
  store?: KnowledgeStore | null;
  embedder?: Embedder | null;
  onProgress?: (e: { stage: 'read' | 'extract'; file: string; done: number; total: number }) => void;
  signal?: AbortSignal;
}

export interface IngestReport {
  files: string[];
  documents: number;
  sections: number;
  chunks: number;
  mkus: number;
  safetyCritical: number;
  concepts: number;
  triggers: number;
  crossRefs: number;
  rejected: Record<string, number>;
  /** The store write (null on a dry run or without a store). */
  load: LoadReport | null;
  /** Dry runs only. */
  diff: IngestDiff | null;
  records: Records;
}

const FORMATS: Record<string, SourceFormat> = { '.pdf': 'pdf', '.md': 'markdown', '.markdown': 'markdown', '.html': 'html', '.htm': 'html' };

/** A folder's notes about its corpus, not content (named explicitly, they are ingested). */
const CORPUS_NOTES = new Set(['PROVENANCE.MD', 'README.MD', 'LICENSE.MD']);

/** Input files: files as given, folders' supported files (sorted, not recursive). */
export function listInputs(inputs: string[]): string[] {
  const files: string[] = [];
  for (const p of inputs) {
    if (!fs.existsSync(p)) throw new ContentError('no such file or folder', p);
    if (fs.statSync(p).isDirectory()) {
      for (const n of fs.readdirSync(p).sort()) if (FORMATS[path.extname(n).toLowerCase()] && !CORPUS_NOTES.has(n.toUpperCase())) files.push(path.join(p, n));
    } else if (FORMATS[path.extname(p).toLowerCase()]) files.push(p);
    else throw new ContentError('unsupported file type (expected .pdf, .md, .markdown, .html or .htm)', p);
  }
  if (!files.length) throw new ContentError(`no PDF, Markdown or HTML files in ${inputs.join(', ')}`);
  return [...new Set(files.map((f) => path.resolve(f)))].sort();
}

function findProvenance(inputs: string[]): string | null {
  for (const p of inputs) {
    const dir = fs.existsSync(p) && fs.statSync(p).isDirectory() ? p : path.dirname(p);
    const f = path.join(dir, 'PROVENANCE.md');
    if (fs.existsSync(f)) return f;
  }
  return null;
}

export function docIdOf(file: string): string {
  return docKey(path.basename(file)) || 'doc';
}

async function readDoc(file: string): Promise<SourceDoc> {
  const format = FORMATS[path.extname(file).toLowerCase()];
  const sha256 = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  const docId = docIdOf(file);
  if (format === 'pdf') {
    const { title, blocks } = await readPdf(file);
    return { file, docId, format, title, blocks, sha256 };
  }
  const { title, blocks } = format === 'markdown' ? readMarkdown(file) : readHtml(file);
  return { file, docId, format, title: title ?? path.basename(file), blocks, sha256 };
}

/** The records as validated loader lines (defaults filled), then the loader's own assembly. */
function toParsed(records: Records): ParsedContent {
  const out = Object.fromEntries(CONTENT_KINDS.map((k) => [k, []])) as unknown as ParsedContent;
  for (const kind of CONTENT_KINDS) {
    records[kind].forEach((r, i) => {
      const value = JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
      const problem = validateLine(kind, value);
      if (problem) throw new ContentError(`generated ${kind} record is invalid: ${problem}`, `${kind}.jsonl`, i + 2);
      out[kind].push({ file: `${kind}.jsonl`, line: i + 2, value });
    });
  }
  return out;
}

export function writeRecords(dir: string, records: Records, header: string): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return CONTENT_KINDS.map((kind) => {
    const file = path.join(dir, `${kind}.jsonl`);
    fs.writeFileSync(file, jsonlBytes(records[kind], header));
    return file;
  });
}

/** What each document was built from (the quote of the source file, its provenance dates), for the out folder. */
function manifestOf(docs: IngestedDoc[], extractor: string) {
  return {
    generated_by: `npm run ingest (extractor ${extractor})`,
    documents: docs.map(({ doc, provenance: p }) => ({
      doc_id: doc.docId, file: path.basename(doc.file), format: doc.format, file_sha256: doc.sha256,
      file_sha256_matches_provenance: p?.fileSha256 ? p.fileSha256 === doc.sha256 : null,
      url: p?.url ?? null, year: p?.year ?? null, license: p?.license ?? null, retrieved_at: p?.retrievedAt ?? null,
    })),
  };
}

export async function ingest(opts: IngestOptions): Promise<IngestReport> {
  if (opts.extractor === 'model' && !opts.model) throw new Error('the model extractor needs a router model (--model and LLM_BASE_URL)');
  const files = listInputs(opts.inputs);
  const provFile = opts.provenanceFile === undefined ? findProvenance(opts.inputs) : opts.provenanceFile;
  const provenance: Map<string, DocProvenance> = provFile ? readProvenance(provFile) : new Map();
  const vocabulary = readVocabulary(opts.vocabularyFile);
  const docs: IngestedDoc[] = [];
  const rejected: Record<string, number> = {};
  for (const [i, file] of files.entries()) {
    opts.signal?.throwIfAborted();
    opts.onProgress?.({ stage: 'read', file, done: i, total: files.length });
    const doc = await readDoc(file);
    if (docs.some((d) => d.doc.docId === doc.docId)) throw new ContentError(`two inputs give the same document id '${doc.docId}'`, file);
    const prov = provenance.get(doc.docId) ?? null;
    // The file's own title heading (Markdown/HTML h1) is not a section title.
    const sections = buildSections(doc.docId, doc.title, doc.blocks);
    opts.onProgress?.({ stage: 'extract', file, done: i, total: files.length });
    const extraction = opts.extractor === 'rules' ? rulesExtract(sections) : await modelExtract(sections, { router: opts.model!.router, model: opts.model!.id, signal: opts.signal });
    for (const [why, n] of Object.entries(extraction.rejected)) rejected[why] = (rejected[why] ?? 0) + n;
    docs.push({ doc, sections, units: extraction.units, provenance: prov });
  }
  opts.onProgress?.({ stage: 'extract', file: '', done: files.length, total: files.length });
  const records = buildRecords(docs, vocabulary, { reviewed: opts.reviewed, lang: opts.lang ?? 'en' });
  const plan = assembleContent(toParsed(records));
  const outDir = opts.outDir ?? null;
  let diff: IngestDiff | null = null;
  let load: LoadReport | null = null;
  if (opts.dryRun) {
    diff = hasJsonl(outDir) ? diffAgainstFolder(records, outDir) : opts.store ? await diffAgainstStore(plan, opts.store) : null;
  } else {
    if (outDir) {
      writeRecords(outDir, records, `Generated by med-agent-hub ingest (${opts.extractor} extractor). Do not edit: re-run the ingest.`);
      fs.writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifestOf(docs, opts.extractor), null, 1)}\n`);
    }
    if (opts.store) {
      if (!opts.embedder) throw new Error('writing to a store needs an embedder');
      load = await writePlan(opts.store, opts.embedder, plan, { signal: opts.signal });
    }
  }
  const edges = records.edges as Array<{ rel: string }>;
  return {
    files,
    documents: records.documents.length,
    sections: records.sections.length,
    chunks: records.chunks.length,
    mkus: records.mkus.length,
    safetyCritical: records.mkus.filter((m) => m.safety_critical === true).length,
    concepts: records.concepts.length,
    triggers: edges.filter((e) => e.rel === 'TRIGGERS').length,
    crossRefs: edges.filter((e) => e.rel === 'CROSS_REF').length,
    rejected,
    load,
    diff,
    records,
  };
}
