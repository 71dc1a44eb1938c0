/**
 * The deterministic `hash` embedder (knowledge-layer.md §5): signed feature hashing of accent-folded word
 * tokens and character 3–5-grams into a fixed dimension, L2-normalised. A fuzzy lexical similarity that
 * needs no model, so tests and the demo are reproducible. An empty text embeds to the zero vector.
 */
import { foldedTokens } from '../fold';
import type { Embedder } from './port';

const WORD_WEIGHT = 1;
// Character n-grams catch inflections ("pénicillines" ~ "pénicilline") at a lower weight than whole words.
const GRAM_WEIGHT = 0.5;
const GRAM_SIZES = [3, 4, 5];

/** FNV-1a over UTF-16 code units with a murmur3 finaliser: fast, stable across platforms. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function addFeature(vec: Float32Array, feature: string, weight: number): void {
  const h = hash32(feature);
  const sign = (hash32(`±${feature}`) & 1) === 0 ? 1 : -1;
  vec[h % vec.length] += sign * weight;
}

export function hashEmbed(text: string, dimension: number): Float32Array {
  const vec = new Float32Array(dimension);
  for (const token of foldedTokens(text)) {
    addFeature(vec, `w:${token}`, WORD_WEIGHT);
    const padded = `#${token}#`;
    for (const n of GRAM_SIZES) {
      for (let i = 0; i + n <= padded.length; i++) addFeature(vec, `c:${padded.slice(i, i + n)}`, GRAM_WEIGHT);
    }
  }
  let norm = 0;
  for (const x of vec) norm += x * x;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < vec.length; i++) vec[i] *= inv;
  }
  return vec;
}

export function createHashEmbedder(dimension: number): Embedder {
  if (!Number.isInteger(dimension) || dimension < 8) throw new Error(`hash embedder: dimension must be a whole number ≥ 8, got ${dimension}`);
  return {
    id: `hash-v1-${dimension}`,
    dimension,
    async embed(texts) {
      return texts.map((t) => hashEmbed(t, dimension));
    },
  };
}
