/** GET /v1/hub/query-profiles through HTTP against the fake router (clients.md §5, decision 23). */
import fs from 'node:fs';
import path from 'node:path';
import { FakeRouter } from '../support/fake-router';
import { ROOT, startTestHub, useRouterAndHub } from '../support/hub';
import { assertShape, expectedProfileDigest, sha256 } from '../support/catalyst-contract';

const MODELS = ['gemma-e4b', 'qwen2.5-14b', 'gemma-4-12b'];

describe('GET /v1/hub/query-profiles', () => {
  const ctx = useRouterAndHub({ models: MODELS });

  test('validates against the discovery schema of clients.md §5, digests recomputed independently', async () => {
    const res = await fetch(`${ctx.hub.url}/v1/hub/query-profiles`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    assertShape('discovery', doc);
    expect(doc.data.map((p: any) => p.id)).toEqual(['catalyst-query-e4b-qwen14b', 'catalyst-query-gemma-4-12b']);
    expect(doc.backend).toEqual({ contract_version: 'med-agent-hub.backend-model-inventory.v1', catalog_reachable: true, advertised_model_ids: MODELS });
    expect(JSON.stringify(doc)).not.toContain('supported_request_contracts');
    for (const p of doc.data) {
      expect(p.profileEvidence.profileId).toBe(p.id);
      expect(p.profileEvidence.profileName).toBe(p.label);
      expect(p.profileEvidence.profileDigest).toBe(expectedProfileDigest(p.profileEvidence));
      for (const r of [p.profileEvidence.writer, p.profileEvidence.reviewer]) {
        const text = fs.readFileSync(path.join(ROOT, 'prompts', `${r.systemPrompt.promptId}.txt`), 'utf8');
        expect(r.systemPrompt.text).toBe(text);
        expect(r.systemPrompt.promptDigest).toBe(sha256(text));
        expect(r.providerId).toBe('med-agent-hub');
      }
      expect(p.available).toBe(true);
      expect(p.unavailable_reasons).toEqual([]);
    }
    const gemma = doc.data[1];
    expect(gemma.role_models).toEqual({ query_generate: 'gemma-4-12b', query_review: 'qwen2.5-14b' });
    expect(gemma.role_knobs).toEqual({ query_generate: { temperature: 0, dry: 0, maxTokens: 1024 }, query_review: { temperature: 0, dry: 0, maxTokens: 2048 } });
    expect(gemma.policies).toEqual({ generation_attempts: 3, collaborative_review: true, model_classes: { query_generate: 'gemma-4', query_review: 'qwen2.5' } });
    expect(gemma.profileEvidence.writer).toMatchObject({ role: 'writer', modelClass: 'gemma-4', modelId: 'gemma-4-12b', config: { temperature: 0, dry: 0, maxTokens: 1024 } });
    expect(gemma.profileEvidence.reviewer).toMatchObject({ role: 'reviewer', modelClass: 'qwen2.5', modelId: 'qwen2.5-14b', config: { temperature: 0, dry: 0, maxTokens: 2048 } });
  });

  test('availability is live: a model the router does not advertise makes its profiles unavailable with a reason', async () => {
    ctx.router.setModels(['gemma-4-12b', 'qwen2.5-14b']);
    try {
      const doc = (await (await fetch(`${ctx.hub.url}/v1/hub/query-profiles`)).json()) as any;
      assertShape('discovery', doc);
      const byId = Object.fromEntries(doc.data.map((p: any) => [p.id, p]));
      expect(byId['catalyst-query-e4b-qwen14b']).toMatchObject({ available: false, unavailable_reasons: ['model_not_loaded:gemma-e4b'] });
      expect(byId['catalyst-query-gemma-4-12b']).toMatchObject({ available: true, unavailable_reasons: [] });
    } finally {
      ctx.router.setModels(MODELS);
    }
  });

  test('the profile digest is stable across requests and differs between profiles', async () => {
    const a = (await (await fetch(`${ctx.hub.url}/v1/hub/query-profiles`)).json()) as any;
    const b = (await (await fetch(`${ctx.hub.url}/v1/hub/query-profiles`)).json()) as any;
    expect(a.data[0].profileEvidence.profileDigest).toBe(b.data[0].profileEvidence.profileDigest);
    // Same prompts, different writer model: the two shipped profiles must not share a digest.
    expect(a.data[0].profileEvidence.profileDigest).not.toBe(a.data[1].profileEvidence.profileDigest);
  });
});

describe('/openapi.json', () => {
  const ctx = useRouterAndHub({ models: MODELS });

  test('documents the four Catalyst routes with the request schemas the validator uses', async () => {
    const doc = (await (await fetch(`${ctx.hub.url}/openapi.json`)).json()) as any;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([
      '/v1/hub/query-profiles', '/v1/hub/query-profiles/{profile}/roles/{role}/generate', '/v1/hub/query-profiles/{profile}/roles/{role}/warm', '/v1/hub/generate',
    ]));
    expect(doc.components.schemas.CatalystRoleRequest).toMatchObject({ required: ['messages'], additionalProperties: false });
    expect(doc.components.schemas.RawGenerateRequest.required).toEqual(['model', 'messages']);
    expect(doc.paths['/v1/hub/query-profiles/{profile}/roles/{role}/generate'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CatalystRoleRequest' });
    expect(Object.keys(doc.paths['/v1/hub/query-profiles/{profile}/roles/{role}/generate'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '422', '499', '502', '504']));
  });
});

describe('discovery with the router hung', () => {
  test('answers within ROUTER_DISCOVERY_TIMEOUT_SECONDS: unreachable catalogue, every profile unavailable', async () => {
    const router = new FakeRouter({ models: MODELS });
    await router.start();
    router.script({ match: { path: '/v1/models' }, fault: 'hang' });
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, ROUTER_DISCOVERY_TIMEOUT_SECONDS: '0.2' });
    try {
      const [discovery, health] = await Promise.all([fetch(`${hub.url}/v1/hub/query-profiles`), fetch(`${hub.url}/health`)]);
      expect(health.status).toBe(200);
      expect(discovery.status).toBe(200);
      const doc = (await discovery.json()) as any;
      assertShape('discovery', doc);
      expect(doc.backend).toMatchObject({ catalog_reachable: false, advertised_model_ids: [] });
      for (const p of doc.data) expect(p).toMatchObject({ available: false, unavailable_reasons: ['model_backend_unreachable'] });
      // The router did see the inventory request (and is still holding it): the hub gave up on it, not skipped it.
      expect(router.requests.filter((r) => r.path === '/v1/models').length).toBeGreaterThanOrEqual(1);
    } finally {
      await hub.close();
      await router.stop();
    }
  });
});
