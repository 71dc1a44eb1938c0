/** Role lookup and profile evidence of catalyst_query profiles (hub-contract §10.2). */
import { lookupRole, profileEvidence, profileRoles, resolveRole, roleKnobs } from '../../../server/catalyst/query-profiles';
import { HubError } from '../../../server/errors';
import { loadCatalog } from '../../../server/profiles/catalog';
import { compileProfiles } from '../../../server/profiles/compiler';
import { catalystSpec, doc, evalSpec, promptsDir, SHIPPED_LEVELS, SHIPPED_PROMPTS } from '../profiles/helpers';
import { assertShape, expectedProfileDigest } from '../../support/catalyst-contract';

const catalog = loadCatalog({ profilesPath: SHIPPED_LEVELS, promptsDir: SHIPPED_PROMPTS });

function lookupError(profile: string, role: string): HubError {
  try {
    lookupRole(catalog, profile, role);
  } catch (err) {
    if (err instanceof HubError) return err;
  }
  throw new Error('found');
}

describe('lookupRole', () => {
  test.each<[string, string, string]>([
    ['nope', 'query_generate', 'profile_not_found'],
    ['single-12b-bare', 'query_generate', 'profile_not_found'],
    ['catalyst-query-gemma-4-12b', 'answer', 'role_not_found'],
    ['catalyst-query-gemma-4-12b', '__proto__', 'role_not_found'],
  ])('%s / %s → 404 %s', (profile, role, code) => {
    expect(lookupError(profile, role)).toMatchObject({ status: 404, code });
  });

  test('resolves model, prompt and knobs from the profile only', () => {
    const { profile, role } = lookupRole(catalog, 'catalyst-query-gemma-4-12b', 'query_review');
    expect(resolveRole(catalog, profile, role)).toMatchObject({
      profileId: 'catalyst-query-gemma-4-12b', role: 'query_review', model: 'qwen2.5-14b', promptStem: 'catalyst-query-review',
      systemPrompt: catalog.readPrompt('catalyst-query-review'), config: { temperature: 0, dryMultiplier: 0, maxTokens: 2048 },
    });
  });
});

describe('profileEvidence', () => {
  const texts: Record<string, string> = { 'q-gen': 'write SQL', 'q-rev': 'review SQL' };
  const compile = (spec: Record<string, unknown>) => compileProfiles(doc({ d: evalSpec(), q: spec }), { promptsDir: promptsDir() })[1];

  test('digest covers prompt digests and config but not the prompt texts', () => {
    const p = compile(catalystSpec());
    const a = profileEvidence(p, 'med-agent-hub', (s) => texts[s]);
    expect(a.profileDigest).toBe(expectedProfileDigest(a));
    expect(a.writer.systemPrompt).toMatchObject({ promptId: 'q-gen', version: '1', promptRef: 'med-agent-hub:prompts/q-gen.txt', text: 'write SQL' });
    // A different prompt text changes its digest, so the profile digest changes too.
    const b = profileEvidence(p, 'med-agent-hub', (s) => `${texts[s]}!`);
    expect(b.profileDigest).not.toBe(a.profileDigest);
    const c = profileEvidence(p, 'other-provider', (s) => texts[s]);
    expect(c.profileDigest).not.toBe(a.profileDigest);
  });

  test('a writer-only profile has reviewer null and only the writer role', () => {
    const spec = catalystSpec({ models: { query_generate: 'g' }, prompts: { query_generate: 'q-gen' }, knobs: { query_generate: { temperature: 0, dry: 0, max_tokens: 512 } } });
    spec.policies = { generation_attempts: 2 };
    const p = compile(spec);
    expect(profileRoles(p)).toEqual(['query_generate']);
    expect(roleKnobs(p)).toEqual({ query_generate: { temperature: 0, dry: 0, maxTokens: 512 } });
    const e = profileEvidence(p, 'med-agent-hub', (s) => texts[s]);
    expect(e.reviewer).toBeNull();
    expect(e.writer.modelClass).toBeNull();
    expect(e.profileDigest).toBe(expectedProfileDigest(e));
  });

  test('the shipped profiles produce evidence Catalyst accepts', () => {
    const p = catalog.get('catalyst-query-e4b-qwen14b')!;
    const e = profileEvidence(p, 'med-agent-hub', (s) => catalog.readPrompt(s));
    assertShape('discovery', { object: 'list', data: [{ id: p.id, label: p.label, available: true, required_models: [], role_models: { query_generate: 'gemma-e4b' }, role_knobs: roleKnobs(p), policies: { generation_attempts: 3, collaborative_review: true, model_classes: {} }, profileEvidence: e, unavailable_reasons: [] }], backend: { contract_version: 'med-agent-hub.backend-model-inventory.v1', catalog_reachable: true, advertised_model_ids: [] } });
  });
});
