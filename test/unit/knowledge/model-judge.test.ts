/** The model judge: used only with judge_enabled and a model; unusable output leaves the proxy's verdict. */
import { runContext } from '../../../server/knowledge/pipeline/context';
import { parseJudgeReply } from '../../../server/knowledge/pipeline/model-judge';
import type { KnowledgeModel } from '../../../server/knowledge/pipeline/types';
import { fakeConcept, fakeEmbedder, fakeMku, FakeKnowledgeStore } from '../../support/knowledge-fake-store';

describe('parseJudgeReply', () => {
  test.each([
    ['{"score": 0.8, "rationale": "couvre"}', 0.8],
    ['```json\n{"score": 1, "rationale": "x"}\n```', 1],
    ['{"score": 0}', 0],
    ['{"score": 1.5}', null],
    ['{"score": "0.5"}', null],
    ['pas de JSON', null],
    ['{"score": 0.5', null],
  ])('%s → %s', (reply, score) => {
    expect(parseJudgeReply(reply)?.score ?? null).toBe(score);
  });
});

function scripted(content: string): KnowledgeModel & { seen: string[] } {
  const seen: string[] = [];
  return { id: 'judge-model', seen, complete: async (messages) => { seen.push(JSON.stringify(messages)); return { content, tokensIn: 42, tokensOut: 7 }; } };
}

const store = () => new FakeKnowledgeStore({ mkus: [fakeMku('m1', { verbatim: "L'amoxicilline traite l'angine." })], concepts: [fakeConcept('c1', 'angine'), fakeConcept('c2', 'pénicilline')], triggers: { c1: ['m1'], c2: ['m1'] }, mkuCosine: { m1: 0.2 } });
const req = { query: 'angine ?', patient_ehr: { allergies: ['pénicilline sévère'] } };

test('judge_enabled with a model: its score decides, its usage is reported, it never sees patient facts', async () => {
  const model = scripted('{"score": 0.1, "rationale": "insuffisant"}');
  const out = await runContext({ store: store(), embedder: fakeEmbedder, policy: { allowUnreviewed: false, model } }, { ...req, opts: { judge_enabled: true } });
  expect(out.trace).toMatchObject({ judge_score: 0.1, judge_sufficient: false, judge_rationale: 'model: insuffisant' });
  expect(out.trace.config).toMatchObject({ judge: 'model', judge_model: 'judge-model' });
  expect(out.fallback).toBeDefined();
  expect([out.tokens_in, out.tokens_out]).toEqual([42, 7]);
  expect(model.seen).toHaveLength(1);
  expect(model.seen[0]).toContain("L'amoxicilline traite l'angine.");
  expect(model.seen[0]).not.toContain('sévère');
});

test('unusable model output: the proxy verdict stands, tagged', async () => {
  const out = await runContext({ store: store(), embedder: fakeEmbedder, policy: { allowUnreviewed: false, model: scripted('oui') } }, { ...req, opts: { judge_enabled: true } });
  expect(out.trace.config.judge).toBe('proxy');
  expect(out.trace.tags).toContain('judge_model_unusable');
  expect(out.trace.judge_rationale).toMatch(/^proxy: .*the proxy stands\)$/);
});

test('without judge_enabled the model is not called', async () => {
  const model = scripted('{"score": 1}');
  const out = await runContext({ store: store(), embedder: fakeEmbedder, policy: { allowUnreviewed: false, model } }, req);
  expect(model.seen).toHaveLength(0);
  expect(out.trace.config).toMatchObject({ judge: 'proxy', judge_model: null });
  expect(out.tokens_in).toBeNull();
});
