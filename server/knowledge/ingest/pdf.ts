/**
 * PDF → blocks with page anchors, through unpdf (pdf.js). Items are joined into lines (`hasEOL`), lines into
 * paragraphs: a paragraph ends at a larger vertical gap, an indent change, a bullet glyph, a page's last
 * line, or a line that stops well short of the right margin. For US prescribing information (DailyMed
 * prints) the text before "FULL PRESCRIBING INFORMATION" (highlights, contents) is skipped; numbered
 * headings are lines in the heading font numbered in order, and section 17 onwards (cut at the Medication
 * Guide) is left out. Tables are flattened by the PDF, so from a "Table N" caption to the next heading
 * nothing is kept: a table row is never quoted.
 */
import fs from 'node:fs';
import { collapse, isBoxedWarningHeading, parseNumberedHeading } from './text';
import type { Block } from './types';

interface PdfItem { str: string; transform: number[]; width?: number; fontName?: string; hasEOL?: boolean }
interface Line { text: string; font: string; x: number; y: number; right: number; page: number }

type UnpdfModule = { getDocumentProxy(data: Uint8Array): Promise<{ numPages: number; getPage(n: number): Promise<{ getTextContent(): Promise<{ items: unknown[] }> }> }> };

function unpdf(): UnpdfModule {
  // unpdf ships a CJS build; required lazily so Markdown/HTML ingest never loads pdf.js.
  return require('unpdf') as UnpdfModule;
}

/** Each page's lines in reading order (the PDF's own item order). */
export async function pdfLines(file: string): Promise<{ pages: number; lines: Line[] }> {
  const pdf = await unpdf().getDocumentProxy(new Uint8Array(fs.readFileSync(file)));
  const lines: Line[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const content = await (await pdf.getPage(p)).getTextContent();
    let cur: Line | null = null;
    for (const raw of content.items as PdfItem[]) {
      if (typeof raw.str !== 'string') continue;
      if (raw.str.trim() !== '') {
        const x = raw.transform[4];
        const right = x + (raw.width ?? 0);
        if (!cur) cur = { text: '', font: raw.fontName ?? '', x, y: raw.transform[5], right, page: p };
        cur.right = Math.max(cur.right, right);
      }
      if (cur) cur.text += raw.str;
      if (raw.hasEOL && cur) {
        if (cur.text.trim()) lines.push({ ...cur, text: collapse(cur.text) });
        cur = null;
      }
    }
    if (cur && cur.text.trim()) lines.push({ ...cur, text: collapse(cur.text) });
  }
  return { pages: pdf.numPages, lines };
}

/** The text of every page (items joined), for checking quotes against their page. */
export async function pdfPageTexts(file: string): Promise<string[]> {
  const { pages, lines } = await pdfLines(file);
  const out: string[] = Array.from({ length: pages }, () => '');
  for (const l of lines) out[l.page - 1] += `${l.text}\n`;
  return out;
}

const BULLET = /^[•●▪◦‣-]\s*/u;

export async function readPdf(file: string): Promise<{ title: string; blocks: Block[] }> {
  const { lines } = await pdfLines(file);
  const title = lines[0]?.text ?? file;
  const fpi = lines.findIndex((l) => l.text === 'FULL PRESCRIBING INFORMATION');
  const body = fpi >= 0 ? lines.slice(fpi + 1) : lines;
  const headingFont = fpi >= 0 ? lines[fpi].font : null;
  const rightMargin = Math.max(...body.map((l) => l.right), 0);
  const baseX = Math.min(...body.map((l) => l.x));
  const blocks: Block[] = [];
  let para: { lines: Line[]; bullet: boolean } | null = null;
  let last = { major: 0, minor: 0 };
  let inTable = false;
  let prev: Line | null = null;

  const flush = () => {
    if (para) {
      const text = para.lines.reduce((acc, l) => (acc === '' ? l.text : acc.endsWith('-') ? acc + l.text : `${acc} ${l.text}`), '');
      blocks.push({ kind: 'para', text: para.bullet ? text.replace(BULLET, '') : text, pages: [...new Set(para.lines.map((l) => l.page))], bullet: para.bullet });
    }
    para = null;
  };

  for (const line of body) {
    const inHeadingFont = headingFont === null || line.font === headingFont;
    const numbered = inHeadingFont ? parseNumberedHeading(line.text) : null;
    if (numbered) {
      const minor = numbered.minor ?? 0;
      const inOrder = numbered.major > last.major || (numbered.major === last.major && minor > last.minor);
      const repeat = numbered.major === last.major && minor === last.minor;
      if (inOrder || repeat) {
        flush();
        prev = null;
        inTable = false;
        if (numbered.major >= 17) break;
        if (inOrder) blocks.push({ kind: 'heading', text: line.text, pages: [line.page], level: numbered.minor === null ? 1 : 2 });
        last = { major: numbered.major, minor };
        continue;
      }
    }
    if (inHeadingFont && last.major === 0 && isBoxedWarningHeading(line.text)) {
      flush();
      blocks.push({ kind: 'heading', text: line.text, pages: [line.page], level: 1 });
      prev = null;
      continue;
    }
    if (inHeadingFont && /^Table \d+/u.test(line.text)) {
      flush();
      inTable = true;
    }
    if (inTable || /^\d{1,3}$/u.test(line.text)) continue;
    const bullet = BULLET.test(line.text) && line.text.length > 2;
    const breaks = !para || !prev || bullet || line.page !== prev.page || Math.abs(line.x - prev.x) > 2
      || prev.y - line.y > 18 || (prev.right < rightMargin - 60 && endsItem(para.lines, line)) || closesReference(para.lines, line);
    if (breaks) {
      flush();
      // An indented paragraph is a list item whose glyph the print dropped.
      para = { lines: [], bullet: bullet || line.x > baseX + 5 };
    }
    para!.lines.push(line);
    prev = line;
  }
  flush();
  return { title, blocks: mergeAcrossPages(blocks) };
}

const CONNECTOR = /\b(?:and|or|of|the|with|to|in|for|a|an|at|by|on|as|from|than|that|is|are|be|see|nor|but)$/iu;

/**
 * A short line ends its paragraph only when the words say so too: a closed sentence, or a capitalised next
 * line after a line that ends neither on a connective word nor inside brackets ("[see Warnings and").
 */
function endsItem(lines: Line[], next: Line): boolean {
  const text = lines.map((l) => l.text).join(' ');
  const open = (text.match(/[[(]/gu) ?? []).length > (text.match(/[\])]/gu) ?? []).length;
  if (open) return false;
  const last = lines[lines.length - 1].text;
  // A closing cross-reference bracket ends a list item too ("… surfaces [see Warnings and Precautions (5.8)]").
  if (/[.:;!?\]]$/u.test(last)) return true;
  return /^[A-Z]/u.test(next.text) && !CONNECTOR.test(last) && !last.endsWith(',') && !last.endsWith('-');
}

/** A list item ending on its cross-reference ("… [see Warnings and Precautions (5.8)]") before a capitalised line. */
function closesReference(lines: Line[], next: Line): boolean {
  return lines[lines.length - 1].text.endsWith(')]') && /^[A-Z]/u.test(next.text) && endsItem(lines, next);
}

/** A paragraph cut by a page break (no sentence end before it) continues on the next page. */
function mergeAcrossPages(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    const p = out[out.length - 1];
    if (p && p.kind === 'para' && b.kind === 'para' && b.bullet === p.bullet && p.pages[p.pages.length - 1] + 1 === b.pages[0] && !/[.:;!?)\]]$/u.test(p.text) && /^[a-z(]/u.test(b.text)) {
      out[out.length - 1] = { ...p, text: p.text.endsWith('-') ? p.text + b.text : `${p.text} ${b.text}`, pages: [...p.pages, ...b.pages] };
    } else out.push(b);
  }
  return out;
}
