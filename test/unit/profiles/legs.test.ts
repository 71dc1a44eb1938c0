/** Low-level leg grammar (hub-contract §4.5). */
import { HubError } from '../../../server/errors';
import { parseLeg } from '../../../server/profiles/legs';
import type { Profile } from '../../../server/profiles/types';

// [id, role, stages, output, writer, prompt, gate, knobs]
const VALID: Array<[string, string, string[], string, string, string, string, Record<string, unknown>]> = [
  ['answer:gemma-4-12b@synthesis-chartsearchai~off~temp0', 'answer', ['context', 'answer', 'gate'], 'bare', 'gemma-4-12b', 'synthesis-chartsearchai', 'off', { answer: { temperature: 0 } }],
  ['answer:gemma-e4b~enforce~temp0.7', 'answer', ['context', 'answer', 'gate'], 'bare', 'gemma-e4b', 'synthesis-chartsearchai', 'enforce', { answer: { temperature: 0.7 } }],
  ['answer:gemma-4-12b@synthesis-date-output-contract~warn~temp0', 'answer', ['context', 'answer', 'gate'], 'bare', 'gemma-4-12b', 'synthesis-date-output-contract', 'warn', { answer: { temperature: 0 } }],
  ['answer-review:qwen2.5-14b', 'review', ['context', 'review'], 'review', 'qwen2.5-14b', 'validation-rewrite', 'enforce', {}],
  ['answer-review:gemma-4-12b@validation-rewrite~enforce~temp0', 'review', ['context', 'review'], 'review', 'gemma-4-12b', 'validation-rewrite', 'enforce', { review: { temperature: 0 } }],
  ['indepth-only:x@synthesis-indepth~temp0', 'indepth', ['context', 'indepth'], 'indepth', 'x', 'synthesis-indepth', 'off', { indepth: { temperature: 0 } }],
  ['indepth-only:mistral-nemo-12b-q8', 'indepth', ['context', 'indepth'], 'indepth', 'mistral-nemo-12b-q8', 'synthesis-indepth', 'off', {}],
  ['answer:google/gemma-4-e4b~temp1.25', 'answer', ['context', 'answer', 'gate'], 'bare', 'google/gemma-4-e4b', 'synthesis-chartsearchai', 'off', { answer: { temperature: 1.25 } }],
];

describe('parseLeg: valid legs', () => {
  test.each(VALID)('%s', (id, role, stages, output, writer, prompt, gate, knobs) => {
    const leg = parseLeg(id) as Profile;
    expect(leg).not.toBeNull();
    expect(leg).toMatchObject({ id, topology: 'leg', visibility: 'internal', lowLevelLeg: true, isDefault: false, staged: false, workflow: 'clinical_answer' });
    expect(leg.stages).toEqual(stages);
    expect(leg.models).toEqual({ [role]: writer });
    expect(leg.prompts).toEqual({ [role]: prompt });
    expect(leg.knobs).toEqual(knobs);
    expect(leg.validation).toBe(role === 'review');
    expect(leg.policies).toMatchObject({ output, temporalGate: gate, temporalRender: 'full', drugSafety: false, answerContract: null });
    // No budget: legs have no exact tokenizer and an unknown window.
    expect(leg.context).toEqual({ window: 0, reservedOutputTokens: 0, exactTokenizer: false, supplementalSources: [] });
    expect(Object.isFrozen(leg.policies)).toBe(true);
  });

  test('a review leg labels and never grounds; other legs carry no review policy', () => {
    expect(parseLeg('answer-review:m')?.policies.review).toEqual({ action: 'label', grounding: 'off', groundingTemperature: null, groundingRepeatPenalty: null });
    expect(parseLeg('answer:m')?.policies.review).toBeNull();
  });

  test('prefixes are tried answer-review:, indepth-only:, answer:', () => {
    expect(parseLeg('answer-review:m')?.models).toEqual({ review: 'm' });
    expect(parseLeg('indepth-only:m')?.models).toEqual({ indepth: 'm' });
  });

  test.each(['single-12b-bare', 'nope', 'gpt-4o', 'Answer:m', 'review:m'])('%s is not a leg (null)', (id) => {
    expect(parseLeg(id)).toBeNull();
  });
});

describe('parseLeg: invalid legs are model_not_found', () => {
  test.each<[string, string]>([
    ['answer:', 'the writer model is empty'],
    ['answer:@synthesis-answer', 'the writer model is empty'],
    ['answer:m@', "'@' must be followed by a prompt name"],
    ['answer:m~~off', "empty option ('~~' or a trailing '~')"],
    ['answer:m~', 'empty option'],
    ['answer:m~maybe', "unknown option 'maybe'"],
    ['answer:m~temperature0', "unknown option 'temperature0'"],
    ['answer:m~off~warn', "more than one gate option ('off', 'warn')"],
    ['answer:m~temp1~temp2', 'more than one temp option'],
    ['answer:m~temp-1', "'temp-1' needs a number ≥ 0"],
    ['answer:m~tempx', "'tempx' needs a number ≥ 0"],
    ['answer:m~temp', "'temp' needs a number ≥ 0"],
    ['answer:m@../../etc/passwd', "'../../etc/passwd' is not a valid prompt name"],
    ['answer:m@a@b', "'a@b' is not a valid prompt name"],
    ['answer:my model', "the writer 'my model' is not a model id"],
    ['indepth-only:m~OFF', "unknown option 'OFF'"],
  ])('%s', (id, why) => {
    let err: unknown;
    try {
      parseLeg(id);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HubError);
    const hub = err as HubError;
    expect([hub.code, hub.status]).toEqual(['model_not_found', 404]);
    expect(hub.message.startsWith(`model '${id}' is not a valid low-level leg: `)).toBe(true);
    expect(hub.message).toContain(why);
    expect(hub.extra).toMatchObject({ model: id });
  });
});
