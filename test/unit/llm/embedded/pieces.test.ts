import { alignPieces, VOCAB_BPE, VOCAB_SPM, vocabularyPieces, type Vocabulary } from '../../../../server/llm/embedded/pieces';

const utf8 = (s: string) => new TextEncoder().encode(s);
const vocab = (type: number, texts: Record<number, string>): Vocabulary => ({ type, text: (t) => texts[t] });
const hex = (pieces: Uint8Array[] | null) => pieces?.map((p) => Buffer.from(p).toString('hex'));

describe('vocabularyPieces', () => {
  const spm = vocab(VOCAB_SPM, { 1: '▁Hello', 2: '▁world', 3: '<0xF0>', 4: '<0x9F>', 5: '<0x98>', 6: '<0x80>', 7: '<s>', 8: '▁', 9: '<0xzz>' });
  const bpe = vocab(VOCAB_BPE, { 1: 'Hello', 2: 'Ġworld', 3: 'ĊĊ', 4: 'ðŁĺ', 5: 'Ģ', 6: '<|im_start|>', 7: 'Ã©' });

  const h = (text: string) => Buffer.from(text, 'utf8').toString('hex');
  test.each<[string, Vocabulary, number[], string[]]>([
    ['SentencePiece words keep their space', spm, [1, 2], [h(' Hello'), h(' world')]],
    ['SentencePiece byte tokens are one byte each', spm, [3, 4, 5, 6], ['f0', '9f', '98', '80']],
    ['a control token is its text', spm, [7], [h('<s>')]],
    ['a lone word-boundary mark is a space', spm, [8], ['20']],
    ['a malformed byte token is its text', spm, [9], [h('<0xzz>')]],
    ['byte-level BPE maps its alphabet back to bytes', bpe, [1, 2], [h('Hello'), h(' world')]],
    ['byte-level BPE newlines', bpe, [3], ['0a0a']],
    ['byte-level BPE splits a character across tokens', bpe, [4, 5], ['f09f98', '80']],
    ['an added token keeps its UTF-8', bpe, [6], [h('<|im_start|>')]],
    ['byte-level BPE accents', bpe, [7], ['c3a9']],
  ])('%s', (_name, v, tokens, expectedHex) => {
    expect(hex(vocabularyPieces(tokens, v))).toEqual(expectedHex);
  });

  test('an unknown vocabulary kind is null, never a guess', () => {
    expect(vocabularyPieces([1], vocab(3, { 1: 'x' }))).toBeNull();
  });
});

describe('alignPieces', () => {
  test.each<[string, string[], string, string[] | null]>([
    ['exact pieces stay', ['Hello', ' world'], 'Hello world', ['Hello', ' world']],
    ['the dummy-prefix space of the first word is dropped', [' Hello', ' world'], 'Hello world', ['Hello', ' world']],
    ['a content that starts with a space keeps one', [' ', ' x'], ' x', ['', ' x']],
    ['a real leading space is kept', [' Hello'], ' Hello', [' Hello']],
    ['pieces that do not concatenate to the content are refused', ['Hello', ' there'], 'Hello world', null],
    ['too few pieces are refused', ['Hello'], 'Hello world', null],
    ['too many pieces are refused', ['Hello', ' world', '!'], 'Hello world', null],
    ['no tokens for no content', [], '', []],
  ])('%s', (_name, pieces, content, expected) => {
    const out = alignPieces(pieces.map(utf8), utf8(content));
    expect(out === null ? null : out.map((p) => Buffer.from(p).toString('utf8'))).toEqual(expected);
  });
});
