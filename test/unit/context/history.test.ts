import { HubError } from '../../../server/errors';
import { fitHistory, splitTurns, stripPriorCitations } from '../../../server/context/history';

interface Msg {
  role: string;
  content: unknown;
}
const user = (content: string): Msg => ({ role: 'user', content });
const assistant = (content: unknown): Msg => ({ role: 'assistant', content });

const OVERHEAD = 100;
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Fake Answer-prompt measure: fixed prompt + mandatory evidence overhead, plus one token per word of history. */
function fakeMeasure() {
  const seen: Msg[][] = [];
  const measure = async (history: Msg[]) => {
    seen.push(history);
    return OVERHEAD + history.reduce((n, m) => n + words(String(m.content)), 0);
  };
  return { measure, seen };
}

describe('stripPriorCitations', () => {
  test.each<[string, string, string, number]>([
    ['single marker before punctuation', 'Weight is 70 kg [1].', 'Weight is 70 kg.', 1],
    ['adjacent and grouped markers', 'A [1][2] and B [3, 4] and C [5-7].', 'A and B and C.', 4],
    ['runs of spaces collapsed', 'Weight  is   70 kg', 'Weight is 70 kg', 0],
    ['marker at line start', '[2] Allergy noted\nnext line [3]', 'Allergy noted\nnext line', 2],
    ['text in brackets is kept', 'See [note] and [a1]', 'See [note] and [a1]', 0],
  ])('%s', (_name, input, output, count) => {
    const r = stripPriorCitations([assistant(input)]);
    expect(r.messages[0].content).toBe(output);
    expect(r.stripped).toBe(count);
  });

  test('user messages are untouched; content parts are stripped', () => {
    const r = stripPriorCitations([user('What about [1]?'), assistant([{ type: 'text', text: 'Yes [1].' }, { type: 'image_url', image_url: 'x' }])]);
    expect(r.messages[0].content).toBe('What about [1]?');
    expect(r.messages[1].content).toEqual([{ type: 'text', text: 'Yes.' }, { type: 'image_url', image_url: 'x' }]);
    expect(r.stripped).toBe(1);
  });
});

describe('splitTurns', () => {
  test.each<[string, Msg[], number[], boolean[]]>([
    ['pairs', [user('q1'), assistant('a1'), user('q2'), assistant('a2')], [2, 2], [true, true]],
    ['trailing question', [user('q1'), assistant('a1'), user('q2')], [2, 1], [true, false]],
    ['two user messages before a reply form one turn', [user('q1'), user('q1b'), assistant('a1'), user('q2')], [3, 1], [true, false]],
    ['leading assistant greeting joins the first turn', [assistant('hi'), user('q1'), assistant('a1')], [3], [true]],
    ['empty', [], [], []],
  ])('%s', (_name, messages, sizes, completed) => {
    const r = splitTurns(messages);
    expect(r.turns.map((t) => t.length)).toEqual(sizes);
    expect(r.completed).toEqual(completed);
  });
});

describe('fitHistory', () => {
  // Four completed turns of 9 words each once citations are stripped (user 5 + assistant 4).
  const TURN = 9;
  const turn = (n: number) => [user(`question ${n} about the weight`), assistant(`answer ${n} cites record [${n}]`)];
  const conversation = [1, 2, 3, 4].flatMap(turn);

  test.each<[string, number, string[], number]>([
    ['fits: nothing dropped', OVERHEAD + 4 * TURN, [], 1],
    ['oldest turn dropped first', OVERHEAD + 4 * TURN - 1, ['turn:1'], 2],
    // Galloping then bisecting: 0, 1, 3 (fits), then 2.
    ['drops oldest-first until it fits', OVERHEAD + 2 * TURN, ['turn:1', 'turn:2'], 4],
    ['everything but the latest completed turn', OVERHEAD + TURN, ['turn:1', 'turn:2', 'turn:3'], 4],
  ])('%s', async (_name, limit, dropped, calls) => {
    const { measure, seen } = fakeMeasure();
    const r = await fitHistory({ conversation, inputLimit: limit, measure });
    expect(r.dropped_turns).toEqual(dropped);
    expect(r.stripped_citation_tokens).toBe(4);
    expect(seen).toHaveLength(calls);
    expect(r.fixed_input_tokens).toBe(OVERHEAD + (4 - dropped.length) * TURN);
    expect(r.history).toHaveLength((4 - dropped.length) * 2);
    // Prior citations never reach the prompt.
    expect(r.history.some((m) => /\[\d+\]/.test(String(m.content)))).toBe(false);
    expect(r.history.at(-1)!.content).toBe('answer 4 cites record');
  });

  test('a long conversation costs O(log n) exact counts, and the fewest turns that fit are dropped', async () => {
    const long = Array.from({ length: 1000 }, (_, i) => turn(i + 1)).flat();
    for (const keep of [1, 2, 7, 500, 999, 1000]) {
      const { measure, seen } = fakeMeasure();
      const r = await fitHistory({ conversation: long, inputLimit: OVERHEAD + keep * TURN, measure });
      expect(r.dropped_turns).toHaveLength(1000 - keep);
      expect(r.fixed_input_tokens).toBe(OVERHEAD + keep * TURN);
      expect(seen.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(1000)) + 2);
    }
  });

  test('the latest completed turn is never dropped: overflow abstains', async () => {
    const { measure, seen } = fakeMeasure();
    let err: unknown;
    try {
      await fitHistory({ conversation, inputLimit: OVERHEAD + TURN - 1, measure, mandatoryIds: ['inline:3'] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HubError);
    const h = err as HubError;
    expect(h.code).toBe('insufficient_context');
    expect(h.status).toBe(422);
    expect(h.extra).toMatchObject({ source: 'selector', mandatory_ids: ['inline:3'] });
    expect(h.message).toMatch(/current question, latest completed turn, prompts, and mandatory evidence exceed/);
    // 0, 1, then all three droppable turns dropped: still over, so it stopped; turn 4 was kept.
    expect(seen).toHaveLength(3);
    expect(seen.at(-1)!.map((m) => m.content)).toEqual(['question 4 about the weight', 'answer 4 cites record']);
  });

  test('the current (unanswered) question is protected with the latest completed turn', async () => {
    const { measure } = fakeMeasure();
    const r = await fitHistory({ conversation: [...turn(1), ...turn(2), user('and now?')], inputLimit: OVERHEAD + TURN + 2, measure });
    expect(r.dropped_turns).toEqual(['turn:1']);
    expect(r.history.map((m) => m.content)).toEqual(['question 2 about the weight', 'answer 2 cites record', 'and now?']);
  });

  test.each<[string, Msg[]]>([
    ['one completed turn', turn(1)],
    ['one completed turn and the current question', [...turn(1), user('next?')]],
    ['no history', []],
  ])('measurement deferred when nothing is droppable: %s', async (_name, messages) => {
    const { measure, seen } = fakeMeasure();
    const r = await fitHistory({ conversation: messages, inputLimit: 1, measure });
    expect(seen).toHaveLength(0);
    expect(r.fixed_input_tokens).toBeNull();
    expect(r.dropped_turns).toEqual([]);
    expect(r.history).toHaveLength(messages.length);
  });
});
