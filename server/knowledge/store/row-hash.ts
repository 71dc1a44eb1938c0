/**
 * Content hashes of stored rows: a write compares the new row's hash with the stored one and touches the row
 * only when they differ, so an identical re-load reports `changed: 0` on every engine.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

function replaceVectors(value: unknown): unknown {
  if (value instanceof Float32Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  return value;
}

export function rowHash(kind: string, row: object): string {
  const plain: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) plain[k] = replaceVectors(v);
  return createHash('sha256').update(kind).update('\n').update(canonicalize(plain)).digest('hex');
}

export function vectorToBuffer(vec: Float32Array): Buffer {
  return Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength);
}

export function bufferToVector(buf: Buffer | Uint8Array): Float32Array {
  // Copy: a Buffer from SQLite may not be 4-byte aligned.
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

/** pgvector's text form `[x,y,…]`. */
export function vectorLiteral(vec: Float32Array): string {
  return `[${Array.from(vec).join(',')}]`;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function isZero(vec: Float32Array): boolean {
  return vec.every((x) => x === 0);
}
