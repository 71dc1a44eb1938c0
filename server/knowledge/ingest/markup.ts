/**
 * Markdown (markdown-it tokens) and HTML (htmlparser2) → blocks. Headings keep their level; paragraphs and
 * list items become paragraph blocks (list items flagged as bullets); tables are skipped entirely (a table
 * cell is never quoted). These formats have no pages, so blocks carry none.
 */
import fs from 'node:fs';
import MarkdownIt from 'markdown-it';
import { Parser } from 'htmlparser2';
import { collapse } from './text';
import type { Block } from './types';

export function readMarkdown(file: string): { title: string | null; blocks: Block[] } {
  const tokens = new MarkdownIt().parse(fs.readFileSync(file, 'utf8'), {});
  const blocks: Block[] = [];
  let heading: number | null = null;
  let listDepth = 0;
  let tableDepth = 0;
  for (const t of tokens) {
    if (t.type === 'table_open') tableDepth++;
    else if (t.type === 'table_close') tableDepth--;
    else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') listDepth++;
    else if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') listDepth--;
    else if (t.type === 'heading_open') heading = Number(t.tag.slice(1));
    else if (t.type === 'heading_close') heading = null;
    else if (t.type === 'inline' && tableDepth === 0) {
      // Inline children without markup: text, code and soft breaks (a soft break is a space).
      const text = collapse((t.children ?? []).map((c) => (c.type === 'softbreak' || c.type === 'hardbreak' ? ' ' : c.type === 'text' || c.type === 'code_inline' ? c.content : '')).join(''));
      if (!text) continue;
      blocks.push(heading !== null ? { kind: 'heading', text, pages: [], level: heading } : { kind: 'para', text, pages: [], bullet: listDepth > 0 });
    }
  }
  return { title: firstH1(blocks), blocks };
}

const BLOCK_TAGS = new Set(['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dd', 'dt', 'blockquote', 'td', 'th', 'div', 'section', 'article', 'br']);
const SKIP_TAGS = new Set(['script', 'style', 'table', 'nav', 'head', 'noscript', 'template']);

export function readHtml(file: string): { title: string | null; blocks: Block[] } {
  const blocks: Block[] = [];
  let title: string | null = null;
  let inTitle = false;
  let skip = 0;
  let text = '';
  let kind: { heading: number | null; bullet: boolean } = { heading: null, bullet: false };
  const flush = () => {
    const t = collapse(text);
    if (t) blocks.push(kind.heading !== null ? { kind: 'heading', text: t, pages: [], level: kind.heading } : { kind: 'para', text: t, pages: [], bullet: kind.bullet });
    text = '';
  };
  const parser = new Parser({
    onopentag(name) {
      if (name === 'title') inTitle = true;
      if (SKIP_TAGS.has(name)) skip++;
      if (skip || !BLOCK_TAGS.has(name)) return;
      flush();
      const h = /^h([1-6])$/u.exec(name);
      kind = { heading: h ? Number(h[1]) : null, bullet: name === 'li' };
    },
    ontext(data) {
      if (inTitle) title = collapse(`${title ?? ''} ${data}`);
      else if (!skip) text += data;
    },
    onclosetag(name) {
      if (name === 'title') inTitle = false;
      if (SKIP_TAGS.has(name)) {
        skip--;
        return;
      }
      if (!skip && BLOCK_TAGS.has(name)) {
        flush();
        kind = { heading: null, bullet: false };
      }
    },
  }, { decodeEntities: true });
  parser.write(fs.readFileSync(file, 'utf8'));
  parser.end();
  flush();
  return { title: title ?? firstH1(blocks), blocks };
}

function firstH1(blocks: Block[]): string | null {
  return blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text ?? null;
}
