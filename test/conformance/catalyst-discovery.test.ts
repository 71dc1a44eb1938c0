/**
 * Catalyst's discovery contract (clients.md §5): its local-hub test fixture, and its fail-closed reading
 * rules restated as a TypeScript consumer, run against the fixture and against the hub's live document.
 * (The shared conformance folder holds no Catalyst family; the §5 fixture is the client's own.)
 */
import { useRouterAndHub } from '../support/hub';
import { assertShape, expectedProfileDigest } from '../support/catalyst-contract';

const PROMPT = { promptId: 'catalyst-query-generate', version: '1', promptRef: 'med-agent-hub:server/prompts/catalyst-query-generate.txt', promptDigest: 'a'.repeat(64), text: '…' };
/** The fixture of clients.md §5 with its ellipses filled in (the reviewer has "the same shape"). */
const CATALYST_FIXTURE = {
  object: 'list',
  data: [{
    id: 'catalyst-query-e4b-qwen14b',
    label: 'Catalyst query — Gemma 4 E4B writer, Qwen 2.5 14B reviewer',
    available: true,
    required_models: ['google/gemma-4-e4b', 'qwen2.5-14b-instruct-mlx'],
    role_models: { query_generate: 'google/gemma-4-e4b', query_review: 'qwen2.5-14b-instruct-mlx' },
    role_knobs: { query_generate: { temperature: 0, dry: 0, maxTokens: 1024 }, query_review: { temperature: 0, dry: 0, maxTokens: 2048 } },
    policies: { generation_attempts: 3, collaborative_review: true, model_classes: { query_generate: 'gemma-4', query_review: 'qwen2.5' } },
    profileEvidence: {
      profileId: 'catalyst-query-e4b-qwen14b', profileName: '…',
      writer: { role: 'writer', providerId: 'med-agent-hub', modelClass: 'gemma-4', modelId: 'google/gemma-4-e4b', config: { temperature: 0, dry: 0, maxTokens: 1024 }, systemPrompt: PROMPT },
      reviewer: { role: 'reviewer', providerId: 'med-agent-hub', modelClass: 'qwen2.5', modelId: 'qwen2.5-14b-instruct-mlx', config: { temperature: 0, dry: 0, maxTokens: 2048 }, systemPrompt: { ...PROMPT, promptId: 'catalyst-query-review' } },
      profileDigest: 'b'.repeat(64),
    },
    unavailable_reasons: [],
  }],
  backend: { contract_version: 'med-agent-hub.backend-model-inventory.v1', catalog_reachable: true, advertised_model_ids: ['google/gemma-4-e4b', 'qwen2.5-14b-instruct-mlx'] },
};

/** Catalyst's reading of discovery: fail closed on a malformed document, list usable profiles only. */
function catalystReads(doc: any): { profiles: string[]; modelRouterReady: boolean } {
  if (!doc || !Array.isArray(doc.data) || doc.data.some((e: unknown) => typeof e !== 'object' || e === null || Array.isArray(e))) throw new Error('model_inventory_unavailable');
  if (doc.backend?.contract_version !== 'med-agent-hub.backend-model-inventory.v1') throw new Error('model_inventory_unavailable');
  const usable = doc.data.filter((e: any) => e.available === true && typeof e.label === 'string' && e.label !== ''
    && typeof e.role_models?.query_generate === 'string' && typeof e.role_knobs?.query_generate === 'object' && e.profileEvidence?.profileId === e.id);
  return { profiles: usable.map((e: any) => e.id), modelRouterReady: doc.backend.catalog_reachable === true };
}

describe('Catalyst discovery fixture (clients.md §5)', () => {
  test('the fixture matches the contract schema the hub is tested against', () => {
    assertShape('discovery', CATALYST_FIXTURE);
    expect(catalystReads(CATALYST_FIXTURE)).toEqual({ profiles: ['catalyst-query-e4b-qwen14b'], modelRouterReady: true });
  });

  test.each<[string, (d: any) => void]>([
    ['data not a list', (d) => { d.data = {}; }],
    ['an entry that is not an object', (d) => { d.data.push('x'); }],
    ['another inventory contract', (d) => { d.backend.contract_version = 'v0'; }],
  ])('Catalyst fails closed on %s', (_name, spoil) => {
    const d = structuredClone(CATALYST_FIXTURE);
    spoil(d);
    expect(() => catalystReads(d)).toThrow('model_inventory_unavailable');
  });
});

describe('the hub\'s discovery as Catalyst reads it', () => {
  const ctx = useRouterAndHub({ models: ['gemma-e4b', 'qwen2.5-14b', 'gemma-4-12b'] });

  test('both shipped query profiles are usable, with the fixture\'s knobs and policies and a recomputable digest', async () => {
    const doc = (await (await fetch(`${ctx.hub.url}/v1/hub/query-profiles`)).json()) as any;
    assertShape('discovery', doc);
    expect(catalystReads(doc)).toEqual({ profiles: ['catalyst-query-e4b-qwen14b', 'catalyst-query-gemma-4-12b'], modelRouterReady: true });
    const e4b = doc.data[0];
    const fixture = CATALYST_FIXTURE.data[0];
    expect(e4b.label).toBe(fixture.label);
    expect(e4b.role_knobs).toEqual(fixture.role_knobs);
    expect(e4b.policies).toEqual(fixture.policies);
    expect(e4b.profileEvidence.writer.config).toEqual(fixture.profileEvidence.writer.config);
    expect(e4b.profileEvidence.profileDigest).toBe(expectedProfileDigest(e4b.profileEvidence));
  });
});
