/**
 * Finds the content files and parses them line by line. A file's kind comes from its name (`mkus.jsonl`, or
 * `<anything>.mkus.jsonl`); a folder contributes every `*.jsonl` inside it (sorted, not recursive). Blank lines
 * and lines starting with `//` are skipped. Every error names the file and the 1-based line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONTENT_KINDS, type ContentKind, validateLine } from './schemas';

export class ContentError extends Error {
  constructor(message: string, readonly file?: string, readonly line?: number) {
    super(file ? `${file}${line ? `:${line}` : ''}: ${message}` : message);
    this.name = 'ContentError';
  }
}

export interface ParsedLine {
  file: string;
  line: number;
  value: Record<string, unknown>;
}

export type ParsedContent = Record<ContentKind, ParsedLine[]>;

export function kindOfFile(file: string): ContentKind {
  const base = path.basename(file);
  const m = /(?:^|\.)([a-z]+)\.jsonl$/.exec(base);
  const kind = m?.[1] as ContentKind | undefined;
  if (!kind || !CONTENT_KINDS.includes(kind)) {
    throw new ContentError(`cannot tell the content kind from the file name (expected <kind>.jsonl or <name>.<kind>.jsonl, kind one of ${CONTENT_KINDS.join(', ')})`, file);
  }
  return kind;
}

export function listContentFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const p of paths) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      throw new ContentError('no such file or folder', p);
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(p).filter((n) => n.endsWith('.jsonl')).sort()) files.push(path.join(p, name));
    } else {
      files.push(p);
    }
  }
  if (files.length === 0) throw new ContentError(`no .jsonl content files in ${paths.join(', ')}`);
  return files;
}

export function readContent(paths: readonly string[]): ParsedContent {
  const out = Object.fromEntries(CONTENT_KINDS.map((k) => [k, [] as ParsedLine[]])) as ParsedContent;
  for (const file of listContentFiles(paths)) {
    const kind = kindOfFile(file);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((raw, i) => {
      const text = raw.trim();
      if (text === '' || text.startsWith('//')) return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new ContentError(`not valid JSON (${(err as Error).message})`, file, i + 1);
      }
      const problem = validateLine(kind, value);
      if (problem) throw new ContentError(`invalid ${kind} line: ${problem}`, file, i + 1);
      out[kind].push({ file, line: i + 1, value: value as Record<string, unknown> });
    });
  }
  return out;
}
