/** Adjudication through the router: a cited model answer is kept (numbers → MKU ids), anything else leaves the extractive one. */
import { runContext } from '../../../server/knowledge/pipeline/context';
import { adjudicatedText } from '../../../server/knowledge/pipeline/model-answer';
import type { KnowledgeModel } from '../../../server/knowledge/pipeline/types';
import { fakeConcept, fakeEmbedder, fakeMku, FakeKnowledgeStore } from '../../support/knowledge-fake-store';

const units = [{ id: 'mku_a', verbatim: 'A.' }, { id: 'mku_b', verbatim: 'B.' }];

describe('adjudicatedText', () => {
  test.each<[string, string | null]>([
    ['Traiter par A [1].', 'Traiter par A [mku_a].'],
    ['A puis B [1][2].', 'A puis B [mku_a][mku_b].'],
    ['A et B [1, 2].', 'A et B [mku_a][mku_b].'],
    ['  Réponse [2]  ', 'Réponse [mku_b]'],
    ['Sans citation.', null],
    ['Cite un extrait absent [3].', null],
    ['Cite zéro [0].', null],
    ['', null],
  ])('%j → %j', (reply, expected) => {
    expect(adjudicatedText(reply, units)).toBe(expected);
  });
});

function scripted(content: string): KnowledgeModel & { seen: string[] } {
  const seen: string[] = [];
  return { id: 'answer-model', seen, complete: async (messages) => { seen.push(JSON.stringify(messages)); return { content, tokensIn: 30, tokensOut: 9 }; } };
}

const store = () => new FakeKnowledgeStore({ mkus: [fakeMku('m1', { verbatim: "L'amoxicilline traite l'angine." })], concepts: [fakeConcept('c1', 'angine'), fakeConcept('c2', 'pénicilline')], triggers: { c1: ['m1'], c2: ['m1'] }, mkuCosine: { m1: 0.2 } });
const req = { query: 'angine ?', patient_ehr: { allergies: ['pénicilline sévère'] } };

test('agent_enabled with a model: its cited answer, with MKU ids, its usage counted; it never sees patient facts', async () => {
  const model = scripted("L'amoxicilline est indiquée [1].");
  const out = await runContext({ store: store(), embedder: fakeEmbedder, policy: { allowUnreviewed: false, model } }, { ...req, opts: { agent_enabled: true } });
  expect(out.answer).toBe(`L'amoxicilline est indiquée [${out.mkus[0].id}].`);
  expect(out.trace.config).toMatchObject({ agent: 'model', agent_model: 'answer-model' });
  expect([out.tokens_in, out.tokens_out]).toEqual([30, 9]);
  expect(model.seen).toHaveLength(1);
  expect(model.seen[0]).toContain("L'amoxicilline traite l'angine.");
  expect(model.seen[0]).not.toContain('sévère');
});

test('a reply that cites nothing shown: the extractive answer stands, tagged', async () => {
  const out = await runContext({ store: store(), embedder: fakeEmbedder, policy: { allowUnreviewed: false, model: scripted('Prenez ce que vous voulez.') } }, { ...req, opts: { agent_enabled: true } });
  expect(out.trace.config.agent).toBe('extractive');
  expect(out.trace.tags).toContain('answer_model_unusable');
  expect(out.answer).toContain("> L'amoxicilline traite l'angine.");
});

test('without a model, agent_enabled answers extractively and calls nothing', async () => {
  const out = await runContext({ store: store(), embedder: fakeEmbedder, policy: { allowUnreviewed: false, model: null } }, { ...req, opts: { agent_enabled: true } });
  expect(out.trace.config).toMatchObject({ agent: 'extractive', agent_model: null });
  expect(out.tokens_in).toBeNull();
});
