/** Test helpers shared by the token-counter unit and integration tests. */
import { HubError } from '../../server/errors';

/** Awaits a promise that must reject with a HubError and returns the error. */
export async function failure(p: Promise<unknown>): Promise<HubError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(HubError);
  return err as HubError;
}

/**
 * A tokenizer.json whose Split pre-tokenizer reproduces the fake router's pieces
 * (`\s*[A-Za-z0-9]+|\s*[^\sA-Za-z0-9]|\s+`) and whose WordPiece model maps every pre-token to ONE token
 * (known words to their id, anything else to [UNK]: WordPiece never splits an unknown word further).
 * `\s` is spelled out as JavaScript's whitespace set: tokenizers.js reads `\s` as Oniguruma's
 * \p{White_Space}, which differs from the fake router's JS regex on U+0085 and U+FEFF.
 */
export function fakeRouterTokenizerJson(vocab: Record<string, number> = { '[UNK]': 0 }): object {
  const ws = String.raw`\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`;
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, post_processor: null, decoder: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: `[${ws}]*[A-Za-z0-9]+|[${ws}]*[^${ws}A-Za-z0-9]|[${ws}]+` }, behavior: 'Isolated', invert: false },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 1e9, vocab },
  };
}
