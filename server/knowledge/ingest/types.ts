/**
 * The ingest pipeline's intermediate shapes: a source file read into blocks (headings and paragraphs with
 * their pages), then sections and chunks, then extracted units. The loader's JSONL records come last
 * (records.ts), so every reader and extractor stays independent of the content format.
 */

export type SourceFormat = 'pdf' | 'markdown' | 'html';

export interface Block {
  kind: 'heading' | 'para';
  /** The block's own text (a paragraph's lines joined; the stored chunk bytes). */
  text: string;
  /** 1-based pages the block lies on (empty for formats without pages). */
  pages: number[];
  /** Headings: 1 = top level. */
  level?: number;
  /** A list item (its lead-in is the previous paragraph ending with ':'). */
  bullet?: boolean;
}

export interface SourceDoc {
  file: string;
  docId: string;
  format: SourceFormat;
  title: string;
  blocks: Block[];
  /** sha256 of the file's bytes (the manifest's quote of the source). */
  sha256: string;
}

export type SectionKind = 'boxed_warning' | 'contraindication' | 'interaction' | 'warning' | 'dosage' | 'population' | 'other';

export interface IngestChunk {
  chunkId: string;
  text: string;
  pages: number[];
  bullet: boolean;
  /** The nearest earlier paragraph of the section ending with ':' (a list's lead-in), if any. */
  leadIn: string | null;
}

export interface IngestSection {
  id: string;
  docId: string;
  titles: string[];
  pages: number[];
  kind: SectionKind;
  chunks: IngestChunk[];
}

/** One extracted unit before concepts are attached: `verbatim` is an exact substring of its chunk. */
export interface ExtractedUnit {
  chunkId: string;
  verbatim: string;
  criteria: string;
  directive: string;
  safetyCritical: boolean;
  mkuClass: SectionKind;
}

export interface Extraction {
  units: ExtractedUnit[];
  /** Candidate units refused (a model quote not found in its chunk, a duplicate…), counted per reason. */
  rejected: Record<string, number>;
}
