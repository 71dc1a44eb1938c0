/**
 * Token pieces as UTF-8 bytes (what llama-server's `/tokenize with_pieces` answers), read from the model's
 * vocabulary: the hub attributes record costs by byte ranges, so a piece must be the exact bytes it covers.
 * Pure: the vocabulary is an argument, so every decoding rule is pinned by table tests.
 */

/** llama.cpp's `llama_vocab_type`. */
export const VOCAB_SPM = 1;
export const VOCAB_BPE = 2;

export interface Vocabulary {
  type: number;
  /** The token's text in the vocabulary (`▁Hello`, `<0xF0>`, `Ġworld`). */
  text(token: number): string;
}

const SPM_SPACE = '\u2581';
const utf8 = new TextEncoder();

/** GPT-2's byte-level alphabet, inverted: the printable character that stands for each byte → the byte. */
const BYTE_OF_CHAR: ReadonlyMap<string, number> = (() => {
  const direct: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) direct.push(b);
  for (let b = 0xa1; b <= 0xac; b++) direct.push(b);
  for (let b = 0xae; b <= 0xff; b++) direct.push(b);
  const map = new Map<string, number>();
  const isDirect = new Set(direct);
  for (const b of direct) map.set(String.fromCodePoint(b), b);
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    if (isDirect.has(b)) continue;
    map.set(String.fromCodePoint(256 + shifted), b);
    shifted++;
  }
  return map;
})();

function byteToken(text: string): number | null {
  if (text.length !== 6 || !text.startsWith('<0x') || !text.endsWith('>')) return null;
  const value = Number.parseInt(text.slice(3, 5), 16);
  return Number.isInteger(value) && /^[0-9A-Fa-f]{2}$/.test(text.slice(3, 5)) ? value : null;
}

function spmPiece(text: string): Uint8Array {
  const byte = byteToken(text);
  return byte === null ? utf8.encode(text.replaceAll(SPM_SPACE, ' ')) : Uint8Array.of(byte);
}

/** A byte-level BPE token; a character outside the alphabet (an added token) is its own UTF-8. */
function bpePiece(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const b = BYTE_OF_CHAR.get(ch);
    if (b !== undefined) out.push(b);
    else out.push(...utf8.encode(ch));
  }
  return Uint8Array.from(out);
}

/** The vocabulary bytes of each token, or null for a vocabulary kind this reader does not decode. */
export function vocabularyPieces(tokens: readonly number[], vocab: Vocabulary): Uint8Array[] | null {
  if (vocab.type === VOCAB_SPM) return tokens.map((t) => spmPiece(vocab.text(t)));
  if (vocab.type === VOCAB_BPE) return tokens.map((t) => bpePiece(vocab.text(t)));
  return null;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array, offset = 0): boolean {
  if (bytes.length - offset < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[offset + i] !== prefix[i]) return false;
  return true;
}

/**
 * Pieces aligned to `content`: the vocabulary bytes when they concatenate to the content exactly; when the
 * tokenizer added SentencePiece's dummy-prefix space before the first word, that space is dropped from the
 * first piece (it is not part of the content). Null when the pieces cannot be aligned: never a guess.
 */
export function alignPieces(pieces: Uint8Array[], content: Uint8Array): Uint8Array[] | null {
  let offset = 0;
  const out = pieces.slice();
  const total = out.reduce((n, p) => n + p.length, 0);
  if (total === content.length + 1 && out.length > 0 && out[0][0] === 0x20) out[0] = out[0].subarray(1);
  for (const piece of out) {
    if (!startsWith(content, piece, offset)) return null;
    offset += piece.length;
  }
  return offset === content.length ? out : null;
}
