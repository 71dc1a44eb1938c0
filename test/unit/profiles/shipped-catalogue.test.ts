/** The shipped profiles/levels.yaml (decisions 10, 19, 22) and the compiled profile shape. */
import { loadCatalog } from '../../../server/profiles/catalog';
import { compileProfiles } from '../../../server/profiles/compiler';
import { isProductProfile, requiredModels, type Profile } from '../../../server/profiles/types';
import { checkedSpec, doc, evalSpec, productSpec, promptsDir, SHIPPED_LEVELS, SHIPPED_PROMPTS } from './helpers';

const catalog = loadCatalog({ profilesPath: SHIPPED_LEVELS, promptsDir: SHIPPED_PROMPTS });
const get = (id: string): Profile => {
  const p = catalog.get(id);
  if (!p) throw new Error(`no profile ${id}`);
  return p;
};

const BARE = ['context', 'answer', 'gate', 'resolve_refs', 'final_resolve_refs', 'indepth', 'indepth_gate'];
const CHECKED = ['context', 'answer', 'gate', 'resolve_refs', 'review', 'gate', 'final_resolve_refs', 'ground_verdicts', 'indepth', 'indepth_gate'];

describe('shipped catalogue', () => {
  test('lists the Target profiles in yaml order with exactly one default, single-12b-bare', () => {
    expect(catalog.profiles.map((p) => p.id)).toEqual([
      'single-12b-bare', 'single-12b-fast', 'single-12b-checked', 'single-12b-verify', 'single-12b-agree', 'team-12b-checked',
      'eval-12b-answer-only', 'eval-12b-temporal-enforce', 'catalyst-query-e4b-qwen14b', 'catalyst-query-gemma-4-12b',
    ]);
    expect(catalog.profiles.filter((p) => p.isDefault).map((p) => p.id)).toEqual(['single-12b-bare']);
  });

  test('the [REF] ids deployed clients pin (clients.md §2.1, §2.4) are aliases of real profiles', () => {
    const pinned: Record<string, string> = {
      'single-e4b-checked': 'single-12b-checked',
      'team-med-checked': 'team-12b-checked',
      'eval-e4b-answer-only': 'eval-12b-answer-only',
      'eval-e4b-temporal-enforce': 'eval-12b-temporal-enforce',
      'single-12b-checked': 'single-12b-checked',
      'eval-12b-answer-only': 'eval-12b-answer-only',
      'eval-12b-temporal-enforce': 'eval-12b-temporal-enforce',
    };
    for (const [id, canonical] of Object.entries(pinned)) expect([id, catalog.resolve(id).id]).toEqual([id, canonical]);
    expect(catalog.profiles.flatMap((p) => p.aliases)).toEqual(['single-e4b-checked', 'team-med-checked', 'eval-e4b-answer-only', 'eval-e4b-temporal-enforce']);
  });

  test('product profiles: plans, priorities and the shared product policy', () => {
    const plans: Record<string, [string[], number]> = {
      'single-12b-bare': [BARE, 10],
      'single-12b-fast': [BARE.slice(0, 5), 20],
      'single-12b-checked': [CHECKED, 30],
      'single-12b-verify': [CHECKED, 40],
      'single-12b-agree': [[...CHECKED.slice(0, 8), 'agree', 'indepth', 'indepth_gate'], 50],
      'team-12b-checked': [['context', 'gather', ...CHECKED.slice(1)], 100],
    };
    for (const [id, [stages, priority]] of Object.entries(plans)) {
      const p = get(id);
      expect([id, p.stages]).toEqual([id, stages]);
      expect(p.selectionPriority).toBe(priority);
      expect(isProductProfile(p)).toBe(true);
      expect(p.policies).toMatchObject({ output: 'product', answerContract: 'chart_answer', temporalGate: 'enforce', drugSafety: true, confidence: 'levels' });
      expect(p.context).toEqual({ window: 24576, reservedOutputTokens: 4096, exactTokenizer: true, supplementalSources: ['knowledge-base'] });
      expect(p.knobs.answer).toEqual({ temperature: 0 });
      expect(p.models.answer).toBe('gemma-4-12b');
      expect(p.workflow).toBe('clinical_answer');
    }
  });

  test('single-12b-fast differs from single-12b-bare only by having no In-Depth', () => {
    const strip = ({ id, label, stages, selectionPriority, isDefault, ...rest }: Profile) => rest;
    expect(strip(get('single-12b-fast'))).toEqual(strip(get('single-12b-bare')));
    expect(get('single-12b-bare').stages.filter((s) => !get('single-12b-fast').stages.includes(s))).toEqual(['indepth', 'indepth_gate']);
  });

  test('review policies: bare/fast none, checked separate, verify folded with the Qwen checker, agree adds a second writer', () => {
    expect(get('single-12b-bare').policies.review).toBeNull();
    expect(get('single-12b-fast').policies.review).toBeNull();
    expect(get('single-12b-checked').policies.review).toEqual({ action: 'label', grounding: 'separate', groundingTemperature: null, groundingRepeatPenalty: null });
    const verify = get('single-12b-verify');
    expect(verify.policies.review).toEqual({ action: 'label', grounding: 'folded', groundingTemperature: 0.7, groundingRepeatPenalty: 1 });
    expect(verify.models).toEqual({ answer: 'gemma-4-12b', indepth: 'gemma-4-12b', review: 'qwen3.5-9b', grounding: 'qwen3.5-9b' });
    expect(verify.prompts.review).toBe('validation-verify');
    const agree = get('single-12b-agree');
    expect(agree.models.second).toBe('qwen3.5-9b');
    expect(requiredModels(agree)).toEqual(['gemma-4-12b', 'qwen3.5-9b']);
    expect(get('single-12b-checked').prompts).toEqual({ answer: 'synthesis-answer', indepth: 'synthesis-indepth', review: 'validation-rewrite', grounding: 'grounding-facts' });
  });

  test('team-12b-checked: topology team, a Gemma 4 12B orchestrator consulting a MedGemma expert, checked like single-12b-checked', () => {
    const team = get('team-12b-checked');
    expect(team.topology).toBe('team');
    expect(team.models).toEqual({ answer: 'gemma-4-12b', indepth: 'gemma-4-12b', orchestrator: 'gemma-4-12b', expert: 'medgemma-1.5-4b-q8', review: 'gemma-4-12b', grounding: 'gemma-4-12b' });
    expect(team.prompts).toMatchObject({ orchestrator: 'orchestrator', expert: 'medical_expert' });
    expect(team.policies.review).toEqual(get('single-12b-checked').policies.review);
    expect(team.context).toEqual(get('single-12b-checked').context);
    expect(requiredModels(team)).toEqual(['gemma-4-12b', 'medgemma-1.5-4b-q8']);
  });

  test('evaluation profiles: bare output in the chart_answer contract, gate off or enforce', () => {
    for (const [id, gate] of [['eval-12b-answer-only', 'off'], ['eval-12b-temporal-enforce', 'enforce']] as const) {
      const p = get(id);
      expect(p.stages).toEqual(['context', 'answer', 'gate']);
      expect(p.visibility).toBe('evaluation');
      expect(p.policies).toMatchObject({ output: 'bare', answerContract: 'chart_answer', temporalGate: gate });
      expect(isProductProfile(p)).toBe(false);
    }
  });

  test('Catalyst query profile matches the discovery fixture knobs and policies', () => {
    const p = get('catalyst-query-e4b-qwen14b');
    expect(p).toMatchObject({ workflow: 'catalyst_query', topology: 'caller', stages: [], isDefault: false });
    expect(p.models).toEqual({ query_generate: 'gemma-e4b', query_review: 'qwen2.5-14b' });
    expect(p.prompts).toEqual({ query_generate: 'catalyst-query-generate', query_review: 'catalyst-query-review' });
    expect(p.knobs).toEqual({ query_generate: { temperature: 0, dry: 0, max_tokens: 1024 }, query_review: { temperature: 0, dry: 0, max_tokens: 2048 } });
    expect(p.policies).toMatchObject({ generationAttempts: 3, collaborativeReview: true, modelClasses: { query_generate: 'gemma-4', query_review: 'qwen2.5' } });
  });

  test('Catalyst query profile catalyst-query-gemma-4-12b: Gemma 4 12B writer, Qwen 2.5 14B reviewer (decision 23)', () => {
    const p = get('catalyst-query-gemma-4-12b');
    expect(p).toMatchObject({ workflow: 'catalyst_query', topology: 'caller', stages: [], isDefault: false });
    expect(p.models).toEqual({ query_generate: 'gemma-4-12b', query_review: 'qwen2.5-14b' });
    expect(p.prompts).toEqual({ query_generate: 'catalyst-query-generate', query_review: 'catalyst-query-review' });
    expect(p.knobs).toEqual({ query_generate: { temperature: 0, dry: 0, max_tokens: 1024 }, query_review: { temperature: 0, dry: 0, max_tokens: 2048 } });
  });

  test('every prompt the catalogue names reads as non-empty text; answer prompts carry the citation and date contract', () => {
    for (const p of catalog.profiles) for (const stem of Object.values(p.prompts)) {
      const files = p.stages.includes('review') && stem === p.prompts.review ? [`${stem}-answer`, `${stem}-indepth`] : [stem];
      for (const f of files) expect(catalog.readPrompt(f).trim().length).toBeGreaterThan(100);
    }
    for (const stem of ['synthesis-answer', 'synthesis-chartsearchai']) {
      const text = catalog.readPrompt(stem);
      expect(text).toMatch(/\[N\]/);
      expect(text).toContain('YYYY-MM-DD');
      expect(text).toMatch(/"answer".*"citations".*"blocks"/);
      expect(text).toMatch(/numbered/);
    }
  });
});

describe('compiled profiles', () => {
  test('are deeply immutable', () => {
    const p = get('single-12b-checked');
    expect(Object.isFrozen(p)).toBe(true);
    const mutable = p as unknown as Record<string, any>;
    expect(() => { mutable.id = 'other'; }).toThrow(TypeError);
    expect(() => { mutable.stages.push('agree'); }).toThrow(TypeError);
    expect(() => { mutable.models.answer = 'other'; }).toThrow(TypeError);
    expect(() => { mutable.policies.review.action = 'apply'; }).toThrow(TypeError);
    expect(() => { mutable.knobs.answer.temperature = 1; }).toThrow(TypeError);
    expect(() => { mutable.context.supplementalSources.push('knowledge-base'); }).toThrow(TypeError);
    expect(() => { (catalog.profiles as Profile[]).pop(); }).toThrow(TypeError);
    expect(catalog.profiles).toHaveLength(10);
  });

  test('discovery flags derive from the plan', () => {
    const dir = promptsDir();
    const [bare, checked, evalP, reviewOnly] = compileProfiles(doc({
      bare: productSpec(),
      checked: checkedSpec({ default: false }),
      ev: evalSpec({ default: false }),
      rev: evalSpec({ default: false, stages: ['context', 'review'], models: { review: 'r' }, policies: { output: 'review', review: { action: 'label', grounding: 'off' } } }),
    }), { promptsDir: dir });
    expect([bare.staged, bare.validation]).toEqual([true, false]);
    expect([checked.staged, checked.validation]).toEqual([true, true]);
    expect([evalP.staged, evalP.validation]).toEqual([false, false]);
    expect([reviewOnly.staged, reviewOnly.validation]).toEqual([false, true]);
  });

  test('defaults and fallback prompt stems are applied', () => {
    const [p] = compileProfiles(doc({ x: evalSpec({ models: { answer: 'm', indepth: 'm' } }) }), { promptsDir: promptsDir() });
    expect(p).toEqual({
      id: 'x', label: 'Eval', workflow: 'clinical_answer', topology: 'single', stages: ['context', 'answer', 'gate'],
      models: { answer: 'm', indepth: 'm' }, prompts: { answer: 'synthesis-answer', indepth: 'synthesis-indepth' },
      policies: { output: 'bare', answerContract: 'caller', temporalGate: 'off', temporalRender: 'full', drugSafety: false, anchor: null, reviewLoops: 1, review: null, confidence: 'levels' },
      visibility: 'experimental', isDefault: true, selectionPriority: 1000, aliases: [],
      context: { window: 0, reservedOutputTokens: 0, exactTokenizer: false, supplementalSources: [] },
      knobs: {}, lowLevelLeg: false, staged: false, validation: false,
    });
  });

  test('null knob values mean "not set" and are dropped; a null anchor defers to the environment', () => {
    const [p] = compileProfiles(doc({ x: evalSpec({ knobs: { answer: { temperature: 0, repeat_penalty: null, dry: null } }, policies: { output: 'bare', anchor: null } }) }), { promptsDir: promptsDir() });
    expect(p.knobs).toEqual({ answer: { temperature: 0 } });
    expect(p.policies.anchor).toBeNull();
  });

  test('a single supplemental source string is accepted; review.confidence is an alias', () => {
    const [p, q] = compileProfiles(doc({
      x: evalSpec({ context: { supplemental_sources: 'knowledge-base' } }),
      y: checkedSpec({ default: false, policies: { output: 'product', temporal_gate: 'enforce', review: { action: 'label', grounding: 'off', confidence: 'findings' } } }),
    }), { promptsDir: promptsDir() });
    expect(p.context.supplementalSources).toEqual(['knowledge-base']);
    expect(q.policies.confidence).toBe('findings');
    expect(q.policies.answerContract).toBe('chart_answer');
  });
});
