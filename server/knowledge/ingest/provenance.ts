/**
 * Reads a corpus PROVENANCE.md (the format of shared/knowledge-corpus/*): the source repository and commit,
 * the files table (repo path, sha256), the documents table (product — labeler, "Revised" date), the issuing
 * organisation template ("… (labeler: …) …"), the licence and the attribution line. Gives one record per
 * document id; a document the file does not describe gets none (the caller falls back to local defaults).
 */
import fs from 'node:fs';

export interface DocProvenance {
  docId: string;
  title: string;
  org: string;
  sourceName: string;
  url: string | null;
  year: number | null;
  license: string | null;
  retrievedAt: string | null;
  fileSha256: string | null;
}

/** A file name as a document id (the ingest's rule: lower case, non-alphanumerics → '_', extension dropped). */
export function docKey(fileName: string): string {
  return fileName.toLowerCase().replace(/\.[a-z0-9]+$/u, '').split(/[^a-z0-9]/u).filter(Boolean).join('_');
}

function tableRows(md: string, header: RegExp): string[][] {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => header.test(l) && l.trim().replace(/^-\s*/u, '').startsWith('|'));
  if (at < 0) return [];
  const rows: string[][] = [];
  for (const l of lines.slice(at + 2)) {
    const t = l.trim().replace(/^-\s*/u, '');
    if (!t.startsWith('|')) break;
    rows.push(t.slice(1, t.endsWith('|') ? -1 : undefined).split('|').map((c) => c.trim().replace(/^`|`$/gu, '')));
  }
  return rows;
}

export function readProvenance(file: string): Map<string, DocProvenance> {
  const md = fs.readFileSync(file, 'utf8');
  const repo = /Repository:\s*`([^`]+)`/u.exec(md)?.[1] ?? null;
  const commit = /Commit:\s*`([0-9a-f]{40})`(?:\s*\((\d{4}-\d{2}-\d{2})\))?/u.exec(md);
  const orgTemplate = /Issuing organisation for provenance:\s*"([^"]+)"/u.exec(md)?.[1] ?? null;
  const attribution = /Attribute:\s*"([^"]+)"/u.exec(md)?.[1] ?? null;
  const license = /CC0 1\.0/u.test(md) ? `CC0 1.0 Universal (public domain dedication)${attribution ? `. ${attribution}` : ''}` : null;
  const files = new Map(tableRows(md, /\|\s*file here\s*\|/u).map((r) => [docKey(r[0]), { repoPath: r[1], sha256: /^[0-9a-f]{64}$/u.test(r[4] ?? '') ? r[4] : null }]));
  const out = new Map<string, DocProvenance>();
  for (const r of tableRows(md, /\|\s*doc_id\s*\|/u)) {
    const [docId, product, revised] = r;
    const [title, labeler] = product.split(' — ').map((x) => x.trim());
    const year = /(\d{4})/u.exec(revised ?? '')?.[1];
    const f = files.get(docId);
    out.set(docId, {
      docId,
      title: labeler ? `${title} (${labeler})` : title,
      org: orgTemplate ? orgTemplate.replace('…', labeler ?? 'unknown') : labeler ?? 'unknown',
      sourceName: orgTemplate && /Food and Drug Administration/u.test(orgTemplate) ? 'FDA' : 'local',
      url: repo && commit && f ? `https://github.com/${repo}/blob/${commit[1]}/${f.repoPath}` : null,
      year: year ? Number(year) : null,
      license,
      retrievedAt: commit?.[2] ?? null,
      fileSha256: f?.sha256 ?? null,
    });
  }
  return out;
}
