/**
 * What an ingest would change, for `--dry-run`: documents, sections and MKUs added / changed / removed
 * against a baseline — the JSONL already in the `--out` folder when there is one (a full diff), else the
 * store through its port (MKUs only: added or changed by id and content hash; the port lists no MKUs by
 * document, so removals are reported as unknown).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ContentPlan } from '../loader/assemble';
import type { KnowledgeStore } from '../store/port';
import type { Records } from './records';

export interface KindDiff { added: number; changed: number; removed: number | null; unchanged: number }
export interface IngestDiff { baseline: 'out-folder' | 'store' | 'none'; documents: KindDiff | null; sections: KindDiff | null; mkus: KindDiff }

function readJsonl(file: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() && !l.trim().startsWith('//')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

function diffBy(next: Array<Record<string, unknown>>, prev: Array<Record<string, unknown>>, key: string): KindDiff {
  const before = new Map(prev.map((r) => [String(r[key]), JSON.stringify(r)]));
  const after = new Map(next.map((r) => [String(r[key]), JSON.stringify(r)]));
  let added = 0;
  let changed = 0;
  let unchanged = 0;
  for (const [id, v] of after) {
    const old = before.get(id);
    if (old === undefined) added++;
    else if (old === v) unchanged++;
    else changed++;
  }
  return { added, changed, unchanged, removed: [...before.keys()].filter((id) => !after.has(id)).length };
}

export function hasJsonl(dir: string | null): dir is string {
  return dir !== null && fs.existsSync(path.join(dir, 'mkus.jsonl'));
}

export function diffAgainstFolder(records: Records, dir: string): IngestDiff {
  return {
    baseline: 'out-folder',
    documents: diffBy(records.documents, readJsonl(path.join(dir, 'documents.jsonl')), 'doc_id'),
    sections: diffBy(records.sections, readJsonl(path.join(dir, 'sections.jsonl')), 'id'),
    mkus: diffBy(records.mkus, readJsonl(path.join(dir, 'mkus.jsonl')), 'id'),
  };
}

export async function diffAgainstStore(plan: ContentPlan, store: KnowledgeStore): Promise<IngestDiff> {
  const existing = await store.mkusById(plan.mkus.map((m) => m.node.id));
  let added = 0;
  let changed = 0;
  let unchanged = 0;
  for (const { node } of plan.mkus) {
    const old = existing.get(node.id);
    if (!old) added++;
    else if (old.content_hash === node.content_hash) unchanged++;
    else changed++;
  }
  return { baseline: 'store', documents: null, sections: null, mkus: { added, changed, unchanged, removed: null } };
}

export function formatDiff(d: IngestDiff): string {
  const one = (label: string, k: KindDiff | null) => (k ? `  ${label.padEnd(10)} +${k.added} ~${k.changed} -${k.removed ?? '?'} (=${k.unchanged})` : `  ${label.padEnd(10)} (not comparable through the store port)`);
  return [`dry run — would change (baseline: ${d.baseline}; + added, ~ changed, - removed, = unchanged):`, one('documents', d.documents), one('sections', d.sections), one('MKUs', d.mkus)].join('\n');
}
