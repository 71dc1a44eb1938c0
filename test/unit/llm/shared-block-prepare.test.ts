/**
 * A large context block's JSON bytes and digest are computed in slices before the first count: the
 * bytes and the hex must be exactly those of the one-piece computation, surrogate pairs and lone halves
 * included, wherever the runs are cut.
 */
import { LoopSlice } from '../../../server/event-loop';
import { LONG_TAIL_CHARS, SharedBlock, blockMessage, encodeJsonBody, prepareBody } from '../../../server/llm/shared-block';
import { chatCacheKey } from '../../../server/llm/tokens';
import { lcg } from '../../support/random-chart';

const ATOMS = ['a', ' ', '"', '\\', '\n', '\r', '\t', '\u0000', '\u2028', 'é', '—', '😀', '\ud83d', '\ude00', '体重', '[1] (2026-01-02) '];

describe('SharedBlock.prepare', () => {
  test('equals json() and digest() on 3,000 random texts cut into runs of 1–9 characters', async () => {
    const rand = lcg(71);
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: Math.floor(rand() * 30) }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join('');
      const prepared = new SharedBlock(text);
      await prepared.prepare(new LoopSlice(0), 1 + Math.floor(rand() * 9));
      const plain = new SharedBlock(text);
      expect({ text, json: prepared.json().toString('hex'), digest: prepared.digest() }).toEqual({ text, json: plain.json().toString('hex'), digest: plain.digest() });
    }
  });

  test('a prepared block is not computed twice', async () => {
    const block = new SharedBlock('x'.repeat(100));
    const slice = new LoopSlice(0);
    await block.prepare(slice, 10);
    expect(slice.yields).toBe(10);
    await block.prepare(slice, 10);
    expect(slice.yields).toBe(10);
  });
});

describe('long tails (a question of 64K characters or more)', () => {
  const longText = (seed: number) => {
    const rand = lcg(seed);
    return Array.from({ length: 40_000 }, () => ATOMS[Math.floor(rand() * ATOMS.length)]).join('');
  };

  test('a body with a long tail encodes to the bytes JSON.stringify gives, prepared in slices or not', async () => {
    for (const seed of [1, 2, 3]) {
      const tail = longText(seed);
      expect(tail.length).toBeGreaterThanOrEqual(LONG_TAIL_CHARS);
      const body = { model: 'm', messages: [blockMessage('user', new SharedBlock('CONTEXT "x"'), tail)], temperature: 0 };
      const plain = JSON.parse(JSON.stringify(body)) as unknown;
      expect(JSON.parse(encodeJsonBody(body).toString())).toEqual(plain);
      const again = { ...body, messages: [blockMessage('user', new SharedBlock('CONTEXT "x"'), `${tail}`)] };
      await prepareBody(again, new LoopSlice(0));
      expect(JSON.parse(encodeJsonBody(again).toString())).toEqual(plain);
    }
  });

  test('count cache keys: equal for the same long tail, different for another', () => {
    const key = (tail: string) => chatCacheKey({ model: 'm', messages: [blockMessage('user', new SharedBlock('A'), tail)] });
    const a = longText(4);
    const b = `${a.slice(0, -1)}#`;
    expect(key(a)).toBe(key(`${a}`));
    expect(key(a)).not.toBe(key(b));
    expect(key(a)).not.toBe(key(a.slice(0, LONG_TAIL_CHARS - 1)));
  });
});
