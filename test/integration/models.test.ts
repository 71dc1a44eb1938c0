import { FakeRouter } from '../support/fake-router';
import { startTestHub, useRouterAndHub } from '../support/hub';
import { writeLevels } from '../unit/profiles/helpers';
import type { RunningHub } from '../../server/main';

describe('GET /v1/models', () => {
  let router: FakeRouter;
  let hub: RunningHub;

  beforeAll(async () => {
    router = new FakeRouter({ models: [{ id: 'gemma-4-12b', status: 'unloaded' }] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });

  test('router advertising gemma-4-12b: single-12b-bare is the only default, catalogue reachable', async () => {
    const res = await fetch(`${hub.url}/v1/models`);
    expect(res.status).toBe(200);
    const doc = await res.json() as any;
    expect(doc.object).toBe('list');
    expect(doc.backend).toEqual({ contract_version: 'med-agent-hub.backend-model-inventory.v1', catalog_reachable: true, advertised_model_ids: ['gemma-4-12b'] });
    const defaults = doc.data.filter((p: { default: boolean }) => p.default);
    expect(defaults.map((p: { id: string }) => p.id)).toEqual(['single-12b-bare']);
    const bare = doc.data.find((p: { id: string }) => p.id === 'single-12b-bare');
    expect(bare).toMatchObject({
      object: 'model',
      owned_by: 'med-agent-hub',
      staged: true,
      validation: false,
      temporal_enforcement: 'enforce',
      available: true,
      topology: 'single',
      visibility: 'product',
      required_models: ['gemma-4-12b'],
      context_window: 24576,
      exact_tokenizer: true,
      unavailable_reasons: [],
    });
    const verify = doc.data.find((p: { id: string }) => p.id === 'single-12b-verify');
    expect(verify.available).toBe(false);
    expect(verify.unavailable_reasons).toEqual(['model_not_loaded:qwen3.5-9b']);
    // The team profile is listed as a product with its gather stage, and needs its expert model too.
    const team = doc.data.find((p: { id: string }) => p.id === 'team-12b-checked');
    expect(team).toMatchObject({ topology: 'team', visibility: 'product', staged: true, validation: true, available: false, required_models: ['gemma-4-12b', 'medgemma-1.5-4b-q8'] });
    expect(team.stages.slice(0, 3)).toEqual(['context', 'gather', 'answer']);
    expect(team.unavailable_reasons).toEqual(['model_not_loaded:medgemma-1.5-4b-q8']);
    // Legs are never listed.
    expect(doc.data.some((p: { id: string }) => p.id.includes(':'))).toBe(false);
  });

  test('the effective default falls back to the available product profile with the lowest priority', async () => {
    router.setModels(['qwen3.5-9b']);
    const doc = await (await fetch(`${hub.url}/v1/models`)).json() as any;
    expect(doc.data.filter((p: { default: boolean }) => p.default)).toHaveLength(0);
    router.setModels(['gemma-4-12b']);
  });

  test('/ names no default profile and reduces the router URL', async () => {
    const body = await (await fetch(`${hub.url}/`)).json() as any;
    expect(body.status).toBe('Server is running');
    expect(JSON.stringify(body)).not.toContain('single-12b');
    expect(body.model_backend).toBe(router.baseUrl.replace(/\/$/, '') + '/');
  });

  test('/health, /openapi.json and the LM Studio probe path', async () => {
    const health = await (await fetch(`${hub.url}/health`)).json() as any;
    expect(health.status).toBe('healthy');
    const openapi = await (await fetch(`${hub.url}/openapi.json`)).json() as any;
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.components.schemas.ChatCompletionRequest.required).toEqual(['model', 'messages']);
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/v1/chat/completions', '/v1/models', '/health', '/admin/querystore/cache/purge']));
    const probe = await fetch(`${hub.url}/api/v1/models`);
    expect(probe.status).toBe(404);
    const err = await probe.json() as any;
    expect(err.error.code).toBe(err.detail.code);
  });
});

describe('the effective default (hub-contract §2.2) with and without the marked profile\'s models', () => {
  // A deployment's catalogue (the yaml marker is the operator's to move): the marked default is checked with its
  // own reviewer model `x`, a second checked profile needs the writer `w` only, an unchecked one ranks last.
  const budget = '    context: {window: 24576, reserved_output_tokens: 4096, exact_tokenizer: true}\n';
  const checked = (id: string, reviewer: string, rest: string) => `  ${id}:
    label: ${id}
    topology: single
    stages: [context, answer, gate, resolve_refs, review, gate, final_resolve_refs, ground_verdicts, indepth, indepth_gate]
    models: {answer: w, indepth: w, review: ${reviewer}, grounding: ${reviewer}}
    policies: {output: product, temporal_gate: enforce, review: {action: label, grounding: separate}}
    visibility: product
${budget}${rest}`;
  const levels = `profiles:
  bare-w:
    label: bare-w
    topology: single
    stages: [context, answer, gate, resolve_refs, final_resolve_refs, indepth, indepth_gate]
    models: {answer: w, indepth: w}
    policies: {output: product, temporal_gate: enforce}
    visibility: product
    selection_priority: 50
${budget}${checked('checked-w-x', 'x', '    default: true\n    selection_priority: 10\n')}${checked('checked-w', 'w', '    selection_priority: 20\n')}`;
  const ctx = useRouterAndHub({ models: ['w', 'x'], env: { HUB_PROFILES_PATH: writeLevels(levels) } });
  const defaults = async () => {
    const doc = (await (await fetch(`${ctx.hub.url}/v1/models`)).json()) as any;
    return doc.data.filter((p: { default: boolean }) => p.default).map((p: { id: string }) => p.id);
  };

  test('with its models the marked checked profile is the default', async () => {
    expect(await defaults()).toEqual(['checked-w-x']);
  });

  test('without its reviewer model the next available checked profile is, before any unchecked one', async () => {
    ctx.router.setModels(['w']);
    expect(await defaults()).toEqual(['checked-w']);
  });

  test('with no product profile available nothing is the default', async () => {
    ctx.router.setModels(['x']);
    expect(await defaults()).toEqual([]);
  });
});

describe('GET /v1/models with the router down', () => {
  test('catalog_reachable false and every profile unavailable with model_backend_unreachable', async () => {
    const router = new FakeRouter();
    const url = await router.start();
    await router.stop(); // a port nobody listens on any more
    const hub = await startTestHub({ LLM_BASE_URL: url, ROUTER_DISCOVERY_TIMEOUT_SECONDS: '1' });
    try {
      const doc = await (await fetch(`${hub.url}/v1/models`)).json() as any;
      expect(doc.backend.catalog_reachable).toBe(false);
      expect(doc.backend.advertised_model_ids).toEqual([]);
      expect(doc.data.length).toBeGreaterThan(0);
      for (const p of doc.data) {
        expect(p.available).toBe(false);
        expect(p.default).toBe(false);
        expect(p.unavailable_reasons).toEqual(['model_backend_unreachable']);
      }
    } finally {
      await hub.close();
    }
  });
});
