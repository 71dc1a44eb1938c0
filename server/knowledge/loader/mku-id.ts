/**
 * Content-addressed MKU ids (knowledge-layer.md §6.2): `mku_<doc_id>_<first 12 hex of sha256(NFC verbatim)>`.
 * Stable across re-ingests; changes exactly when the quoted text changes, which is when a citation should.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

export function mkuId(docId: string, verbatim: string): string {
  return `mku_${docId}_${createHash('sha256').update(verbatim.normalize('NFC'), 'utf8').digest('hex').slice(0, 12)}`;
}

/** sha256 of the MKU's canonical JSON content (everything but the vector), stored as `content_hash`. */
export function contentHash(content: object): string {
  return createHash('sha256').update(canonicalize(content), 'utf8').digest('hex');
}
