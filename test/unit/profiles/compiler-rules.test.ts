/** Every compile-time rule of hub-contract §4.2 (and the Target keys of §4.1) refuses a minimal violating catalogue. */
import { compileProfiles, ProfileConfigError } from '../../../server/profiles/compiler';
import { catalystSpec, checkedSpec, doc, evalSpec, productSpec, promptsDir, Spec } from './helpers';

const PROMPTS = promptsDir();

function compileError(d: unknown, dir = PROMPTS): ProfileConfigError {
  try {
    compileProfiles(d, { promptsDir: dir });
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileConfigError);
    return err as ProfileConfigError;
  }
  throw new Error('expected compileProfiles to throw');
}

const one = (spec: Spec) => doc({ x: spec });
const withPolicies = (base: Spec, policies: Spec) => ({ ...base, policies: { ...base.policies, ...policies } });
const withContext = (base: Spec, context: Spec) => ({ ...base, context: { ...base.context, ...context } });
const without = (plan: string[], ...drop: string[]) => plan.filter((s) => !drop.includes(s));

// [rule, catalogue, expected message fragment]
const CASES: Array<[string, unknown, string]> = [
  // Rule 1: identity, topology, plan shape.
  ['1 empty label', one(evalSpec({ label: '' })), "profile 'x': label must NOT have fewer than 1 characters"],
  ['1 blank label', one(evalSpec({ label: '   ' })), "profile 'x': label must not be blank"],
  ['1 missing label', one(evalSpec({ label: undefined })), "profile 'x': missing required key 'label'"],
  ['1 invalid topology', one(evalSpec({ topology: 'solo' })), "profile 'x': topology must be one of single, team, leg, caller"],
  ['1 missing topology', one(evalSpec({ topology: undefined })), "missing required key 'topology'"],
  ['1 empty stages', one(evalSpec({ stages: [] })), "profile 'x': stages must not be empty"],
  ['1 plan not starting with context', one(evalSpec({ stages: ['answer', 'gate'] })), "profile 'x': stages must start with 'context' (found 'answer')"],
  ['1 unknown stage', one(evalSpec({ stages: ['context', 'answer', 'gate', 'bogus'] })), "profile 'x': unknown stage 'bogus'"],
  ['1 repeated stage', one(evalSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'resolve_refs'] })), "stage 'resolve_refs' appears more than once (only 'gate' may repeat)"],
  ['1 id with a colon (leg namespace)', doc({ 'answer:x': evalSpec() }), "profile id 'answer:x' is invalid"],
  // Rule 2: topology and stage models.
  ['2 team without gather', one(evalSpec({ topology: 'team', models: { answer: 'm', orchestrator: 'o' } })), "profile 'x': topology 'team' requires a 'gather' stage"],
  ['2 single with orchestrator', one(evalSpec({ models: { answer: 'm', orchestrator: 'o' } })), "topology 'single' may not declare an 'orchestrator' model"],
  ['2 gather without orchestrator', one(evalSpec({ topology: 'team', stages: ['context', 'gather', 'answer', 'gate'] })), "stage 'gather' requires models.orchestrator"],
  ['2 answer without model', one(evalSpec({ models: {} })), "profile 'x': stage 'answer' requires models.answer"],
  ['2 indepth without model', one(evalSpec({ stages: ['context', 'answer', 'gate', 'indepth'] })), "stage 'indepth' requires models.indepth"],
  ['2 review without model', one(withPolicies(evalSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'review', 'gate'] }), { review: { action: 'label', grounding: 'off' } })), "stage 'review' requires models.review"],
  ['2 ground_verdicts without model', one(withPolicies(checkedSpec({ models: { answer: 'w', indepth: 'w', review: 'w' } }), {})), "stage 'ground_verdicts' requires models.grounding"],
  ['2 unknown role', one(evalSpec({ models: { answer: 'm', writer: 'w' } })), "profile 'x': models has an unknown role 'writer' (allowed: answer,"],
  // Rule 3.
  ['3 answer not followed by gate', one(evalSpec({ stages: ['context', 'answer', 'resolve_refs', 'gate'] })), "profile 'x': stage 'answer' must be immediately followed by 'gate'"],
  ['3 gather after answer', one(evalSpec({ topology: 'team', stages: ['context', 'answer', 'gate', 'gather'], models: { answer: 'm', orchestrator: 'o' } })), "stage 'gather' must come before 'answer'"],
  ['3 stray gate', one(evalSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'gate'] })), "stage 'gate' must immediately follow 'answer' or 'review'"],
  // Rule 4.
  ['4 review not followed by gate', one(checkedSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'review', 'final_resolve_refs', 'ground_verdicts', 'indepth', 'indepth_gate'] })), "stage 'review' must be immediately followed by 'gate'"],
  // Rule 5.
  ['5 resolve_refs before answer', one(evalSpec({ stages: ['context', 'resolve_refs', 'answer', 'gate'] })), "stage 'resolve_refs' must come after 'answer'"],
  ['5 resolve_refs after review', one(withPolicies(evalSpec({ stages: ['context', 'answer', 'gate', 'review', 'gate', 'resolve_refs'], models: { answer: 'm', review: 'm' } }), { review: { action: 'label', grounding: 'off' } })), "stage 'resolve_refs' must come before 'review'"],
  // Rule 6.
  ['6 ground_verdicts without final_resolve_refs', one(checkedSpec({ stages: without(checkedSpec().stages, 'final_resolve_refs') })), "stage 'ground_verdicts' requires an earlier 'final_resolve_refs'"],
  ['6 ground_verdicts before review', one(checkedSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'final_resolve_refs', 'ground_verdicts', 'review', 'gate', 'indepth', 'indepth_gate'] })), "stage 'ground_verdicts' must come after 'review'"],
  ['6 final_resolve_refs before review', one(withPolicies(evalSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'final_resolve_refs', 'review', 'gate'], models: { answer: 'm', review: 'm' } }), { review: { action: 'label', grounding: 'off' } })), "stage 'final_resolve_refs' must come after 'review'"],
  ['6 final_resolve_refs before the last gate', one(evalSpec({ stages: ['context', 'final_resolve_refs', 'answer', 'gate'] })), "stage 'final_resolve_refs' must come after the last 'gate'"],
  // Rule 7.
  ['7 indepth_gate without indepth', one(evalSpec({ stages: ['context', 'answer', 'gate', 'indepth_gate'] })), "stage 'indepth_gate' must come after 'indepth'"],
  ['7 indepth_gate before indepth', one(evalSpec({ stages: ['context', 'answer', 'gate', 'indepth_gate', 'indepth'], models: { answer: 'm', indepth: 'm' } })), "stage 'indepth_gate' must come after 'indepth'"],
  // Rule 8: product envelope.
  ['8 product without resolve_refs', one(productSpec({ stages: without(productSpec().stages, 'resolve_refs') })), "a product profile (policies.output: product) must include stage 'resolve_refs'"],
  ['8 product without final_resolve_refs', one(productSpec({ stages: without(productSpec().stages, 'final_resolve_refs') })), "must include stage 'final_resolve_refs'"],
  ['8 product In-Depth without its gate', one(productSpec({ stages: without(productSpec().stages, 'indepth_gate') })), "a product profile may omit 'indepth' but never its gate"],
  ['8 product review policy without ground_verdicts', one(withPolicies(checkedSpec({ stages: without(checkedSpec().stages, 'ground_verdicts') }), { review: { action: 'label', grounding: 'off' } })), "a product profile with a review policy must include stage 'ground_verdicts'"],
  ['8 product order', one(checkedSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'review', 'gate', 'final_resolve_refs', 'indepth', 'indepth_gate', 'ground_verdicts'] })), "product stage order must be final_resolve_refs < ground_verdicts < indepth < indepth_gate ('indepth' comes before 'ground_verdicts')"],
  ['8 product temporal gate', one(withPolicies(productSpec(), { temporal_gate: 'warn' })), "a product profile must set policies.temporal_gate: enforce (found 'warn')"],
  ['8 product answer contract', one(withPolicies(productSpec(), { answer_contract: 'caller' })), "a product profile must use policies.answer_contract: chart_answer"],
  ['8 product without exact budget', one(withContext(productSpec(), { exact_tokenizer: false })), 'a product profile must set context.exact_tokenizer: true'],
  ['8 product window not above reserve', one(withContext(productSpec(), { window: 4096 })), 'context.window (4096) must exceed context.reserved_output_tokens (4096)'],
  // Rule 9.
  ['9 invalid output mode', one(withPolicies(evalSpec(), { output: 'fancy' })), "profile 'x': policies.output must be one of bare, combined, product, review, indepth"],
  ['9 invalid answer contract', one(withPolicies(evalSpec(), { answer_contract: 'json' })), 'policies.answer_contract must be one of caller, chart_answer'],
  ['9 blank supplemental source', one(evalSpec({ context: { supplemental_sources: ['kb', ' '] } })), 'context.supplemental_sources has a blank entry'],
  ['9 duplicate supplemental source', one(evalSpec({ context: { supplemental_sources: ['kb', 'kb'] } })), "context.supplemental_sources lists 'kb' more than once"],
  ['9 unknown key', one(evalSpec({ staged: true })), "profile 'x': unknown key 'staged'"],
  ['9 unknown policy key', one(withPolicies(evalSpec(), { gate: 'on' })), "unknown key 'gate' in policies"],
  // Rule 10.
  ['10 prompt stem leaving the prompt directory', one(evalSpec({ prompts: { answer: '../etc/passwd' } })), "profile 'x': prompts.answer must match pattern"],
  ['10 missing prompt file', one(evalSpec({ prompts: { answer: 'foo' } })), "profile 'x': prompt file '"],
  ['10 no default', doc({ a: evalSpec({ default: false }), b: evalSpec({ default: undefined }) }), 'profiles: exactly one profile must have default: true (found 0)'],
  ['10 two defaults', doc({ a: evalSpec(), b: evalSpec() }), 'profiles: exactly one profile must have default: true (found 2: a, b)'],
  // Rule 11: Catalyst query profiles.
  ['11 temperature not 0', doc({ d: evalSpec(), q: catalystSpec({ knobs: { query_generate: { temperature: 0.2, dry: 0 } } }) }), "profile 'q': knobs.query_generate.temperature must be the number 0 (found 0.2)"],
  ['11 temperature as bool', doc({ d: evalSpec(), q: catalystSpec({ knobs: { query_generate: { temperature: false, dry: 0 } } }) }), "profile 'q': knobs.query_generate.temperature must be number"],
  ['11 temperature null', doc({ d: evalSpec(), q: catalystSpec({ knobs: { query_generate: { temperature: null, dry: 0 } } }) }), 'knobs.query_generate.temperature must be the number 0 (found null)'],
  ['11 dry missing on reviewer', doc({ d: evalSpec(), q: catalystSpec({ knobs: { query_generate: { temperature: 0, dry: 0, max_tokens: 8 }, query_review: { temperature: 0 } } }) }), 'knobs.query_review.dry must be the number 0 (found null)'],
  ['11 generation_attempts above 3', doc({ d: evalSpec(), q: withPolicies(catalystSpec(), { generation_attempts: 4 }) }), "profile 'q': policies.generation_attempts must be <= 3"],
  ['11 generation_attempts below 1', doc({ d: evalSpec(), q: withPolicies(catalystSpec(), { generation_attempts: 0 }) }), 'policies.generation_attempts must be >= 1'],
  ['11 collaborative review with one model class', doc({ d: evalSpec(), q: withPolicies(catalystSpec(), { model_classes: { query_generate: 'qwen2.5', query_review: 'qwen2.5' } }) }), "requires distinct model_classes for query_generate and query_review (both 'qwen2.5')"],
  ['11 collaborative review without classes', doc({ d: evalSpec(), q: withPolicies(catalystSpec(), { model_classes: undefined }) }), 'requires model_classes.query_generate and model_classes.query_review'],
  ['11 query role on a clinical profile', one(evalSpec({ models: { answer: 'm', query_review: 'r' } })), "profile 'x': role 'query_review' (in models) is only for workflow 'catalyst_query' profiles"],
  ['11 query policy on a clinical profile', one(withPolicies(evalSpec(), { generation_attempts: 2 })), "policies.generation_attempts is only for workflow 'catalyst_query' profiles"],
  ['11 catalyst without caller topology', doc({ d: evalSpec(), q: catalystSpec({ topology: 'single' }) }), "profile 'q': workflow 'catalyst_query' requires topology 'caller' (found 'single')"],
  ['11 caller topology on a clinical profile', one(evalSpec({ topology: 'caller' })), "topology 'caller' is only for workflow 'catalyst_query'"],
  ['11 catalyst with a hub-run plan', doc({ d: evalSpec(), q: catalystSpec({ stages: ['context'] }) }), 'a catalyst_query profile has no hub-run stages'],
  ['11 catalyst as default', doc({ q: catalystSpec({ default: true }) }), 'a catalyst_query profile cannot be the default profile'],
  ['11 catalyst with a clinical role', doc({ d: evalSpec(), q: catalystSpec({ models: { query_generate: 'g', answer: 'a' } }) }), "may only use roles query_generate, query_review (found 'answer' in models)"],
  ['11 catalyst without writer', doc({ d: evalSpec(), q: catalystSpec({ models: { query_review: 'r' } }) }), 'a catalyst_query profile requires models.query_generate'],
  ['11 catalyst role without max_tokens', doc({ d: evalSpec(), q: catalystSpec({ knobs: { query_generate: { temperature: 0, dry: 0 }, query_review: { temperature: 0, dry: 0, max_tokens: 2 } } }) }), "profile 'q': knobs.query_generate.max_tokens is required"],
  ['11 catalyst role without prompt', doc({ d: evalSpec(), q: catalystSpec({ prompts: { query_generate: 'q-gen' } }) }), "role 'query_review' requires prompts.query_review"],
  // Rule 12 and the Target review keys.
  ['12 review action apply', one(withPolicies(checkedSpec(), { review: { action: 'apply' } })), "profile 'x': policies.review.action 'apply' is refused: only 'label' is supported"],
  ['12 review action redo', one(withPolicies(checkedSpec(), { review: { action: 'redo', grounding: 'separate' } })), "policies.review.action 'redo' is refused"],
  ['T review stage without policy', one(withPolicies(checkedSpec(), { review: undefined })), "stage 'review' requires policies.review"],
  ['T review policy without review stage', one(withPolicies(productSpec(), { review: { action: 'label', grounding: 'off' } })), "policies.review is set but the plan has no 'review' stage"],
  ['T ground_verdicts without review policy', one(productSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'final_resolve_refs', 'ground_verdicts', 'indepth', 'indepth_gate'], models: { answer: 'w', indepth: 'w', grounding: 'w' } })), "stage 'ground_verdicts' requires policies.review (no review policy ⇒ no ground_verdicts stage)"],
  ['T separate grounding without ground_verdicts', one(withPolicies(evalSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'review', 'gate'], models: { answer: 'm', review: 'm' } }), { review: { action: 'label', grounding: 'separate' } })), "policies.review.grounding 'separate' requires a 'ground_verdicts' stage"],
  ['T confidence disagreement', one(withPolicies(checkedSpec(), { confidence: 'levels', review: { action: 'label', confidence: 'findings' } })), "policies.confidence 'levels' and policies.review.confidence 'findings' disagree"],
  ['T invalid confidence', one(withPolicies(evalSpec(), { confidence: 'stars' })), 'policies.confidence must be one of levels, findings'],
  ['T invalid workflow', one(evalSpec({ workflow: 'chat' })), 'workflow must be one of clinical_answer, catalyst_query'],
  ['T agree without second writer', one(checkedSpec({ stages: [...checkedSpec().stages.slice(0, 8), 'agree', 'indepth', 'indepth_gate'] })), "stage 'agree' requires models.second"],
  ['T agree with the same writer', one(checkedSpec({ stages: [...checkedSpec().stages.slice(0, 8), 'agree', 'indepth', 'indepth_gate'], models: { answer: 'w', indepth: 'w', review: 'w', grounding: 'w', second: 'w' } })), "stage 'agree' needs a second writer different from the answer writer"],
  ['T agree after indepth', one(checkedSpec({ stages: [...checkedSpec().stages, 'agree'], models: { answer: 'w', indepth: 'w', review: 'w', grounding: 'w', second: 's' } })), "stage 'agree' must come before 'indepth'"],
  ['T agree before the review gate', one(checkedSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'agree', 'review', 'gate', 'final_resolve_refs', 'ground_verdicts', 'indepth', 'indepth_gate'], models: { answer: 'w', indepth: 'w', review: 'w', grounding: 'w', second: 's' } })), "stage 'agree' must come after the last 'gate'"],
  ['T invalid anchor', one(withPolicies(evalSpec(), { anchor: 'yesterday' })), "profile 'x': policies.anchor is invalid (found \"yesterday\"): expected wall_clock, latest_record or an ISO date"],
  ['T knob out of range', one(evalSpec({ knobs: { answer: { temperature: -1 } } })), "profile 'x': knobs.answer.temperature must be >= 0 (found -1)"],
  // Aliases (issue #33): each resolves to one profile and never shadows an id.
  ['A alias is the own id', one(evalSpec({ aliases: ['x'] })), "profile 'x': alias 'x' is the profile's own id"],
  ['A alias is another profile id', doc({ a: evalSpec({ aliases: ['b'] }), b: evalSpec({ default: false }) }), "profile 'a': alias 'b' is the id of another profile"],
  ['A alias on two profiles', doc({ a: evalSpec({ aliases: ['old'] }), b: evalSpec({ default: false, aliases: ['old'] }) }), "profile 'b': alias 'old' is already an alias of profile 'a'"],
  ['A alias listed twice', one(evalSpec({ aliases: ['old', 'old'] })), "profile 'x': aliases must NOT have duplicate items"],
  ['A alias in the leg namespace', one(evalSpec({ aliases: ['answer:m'] })), "profile 'x': aliases[0] must match pattern"],
  ['A aliases not a list', one(evalSpec({ aliases: 'old' })), "profile 'x': aliases must be array"],
  ['A alias on a catalyst profile', doc({ d: evalSpec(), q: catalystSpec({ aliases: ['old-q'] }) }), "profile 'q': a catalyst_query profile cannot have aliases"],
  // Catalogue shape.
  ['doc not an object', null, 'the catalogue must be object (found null)'],
  ['no profiles key', {}, "missing required top-level key 'profiles'"],
  ['empty profiles', { profiles: {} }, 'profiles must contain at least one profile'],
  ['unknown top-level key', { profiles: { x: evalSpec() }, extras: {} }, "unknown top-level key 'extras'"],
];

describe('compileProfiles refuses every §4.2 violation', () => {
  test.each(CASES)('%s', (_rule, d, fragment) => {
    expect(compileError(d).message).toContain(fragment);
  });

  test('the error names the offending profile', () => {
    const err = compileError(doc({ ok: evalSpec(), bad: evalSpec({ default: false, stages: ['context', 'answer'] }) }));
    expect(err.profileId).toBe('bad');
    expect(err.message).toBe("profile 'bad': stage 'answer' must be immediately followed by 'gate'");
  });

  test('missing prompt file message names file, role and family', () => {
    expect(compileError(one(evalSpec({ prompts: { answer: 'foo' } }))).message).toMatch(/^profile 'x': prompt file '.*foo\.txt' is missing \(role answer\)$/);
    const noIndepthReview = promptsDir(['synthesis-answer', 'synthesis-indepth', 'fam-answer']);
    const err = compileError(one(checkedSpec({ prompts: { review: 'fam' } })), noIndepthReview);
    expect(err.message).toMatch(/prompt file '.*fam-indepth\.txt' is missing \(role review, family 'fam'\)/);
  });

  test('a fallback stem is checked too', () => {
    const empty = promptsDir([]);
    expect(compileError(one(evalSpec()), empty).message).toMatch(/synthesis-answer\.txt' is missing \(role answer\)/);
  });
});

describe('the minimal valid specs compile', () => {
  test.each<[string, unknown]>([
    ['eval', one(evalSpec())],
    ['product without review', one(productSpec())],
    ['product without In-Depth (fast)', one(productSpec({ stages: ['context', 'answer', 'gate', 'resolve_refs', 'final_resolve_refs'] }))],
    ['reviewed product', one(checkedSpec())],
    ['review output without a re-gate', one(withPolicies(evalSpec({ stages: ['context', 'review'], models: { review: 'r' } }), { output: 'review', review: { action: 'label', grounding: 'off' } }))],
    ['team', one(evalSpec({ topology: 'team', stages: ['context', 'gather', 'answer', 'gate'], models: { answer: 'm', orchestrator: 'o', expert: 'e' } }))],
    ['catalyst', doc({ d: evalSpec(), q: catalystSpec() })],
    ['writer-only catalyst', doc({ d: evalSpec(), q: withPolicies(catalystSpec({ models: { query_generate: 'g' }, prompts: { query_generate: 'q-gen' }, knobs: { query_generate: { temperature: 0, dry: 0, max_tokens: 512 } } }), { collaborative_review: false, model_classes: undefined }) })],
    ['agree', one(checkedSpec({ stages: [...checkedSpec().stages.slice(0, 8), 'agree', 'indepth', 'indepth_gate'], models: { answer: 'w', indepth: 'w', review: 'w', grounding: 'w', second: 's' } }))],
    ['iso anchor', one(withPolicies(evalSpec(), { anchor: '2026-01-31' }))],
    ['aliases', doc({ a: evalSpec({ aliases: ['old-a', 'older-a'] }), b: evalSpec({ default: false, aliases: ['old-b'] }) })],
  ])('%s', (_name, d) => {
    expect(() => compileProfiles(d, { promptsDir: PROMPTS })).not.toThrow();
  });
});
