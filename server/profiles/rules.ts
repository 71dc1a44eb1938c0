/**
 * The compile-time rules of hub-contract §4.2 (and the Target keys of §4.1), checked on a compiled
 * draft profile. Each rule is a small function that throws ProfileConfigError naming the profile
 * and the rule, so a bad catalogue stops start-up with a message an operator can act on (decision 10).
 */
import type { Profile, Role, StageName } from './types';

/** A malformed catalogue or a missing prompt file: start-up must stop (decision 10). */
export class ProfileConfigError extends Error {
  /** The offending profile id, or null for catalogue-wide problems. */
  readonly profileId: string | null;

  constructor(message: string, profileId: string | null = null) {
    super(message);
    this.name = 'ProfileConfigError';
    this.profileId = profileId;
  }
}

export function profileError(id: string, rule: string): ProfileConfigError {
  return new ProfileConfigError(`profile '${id}': ${rule}`, id);
}

/** Which role's model each stage calls (§4.1, plus `agree` → `second` from §7.9). */
export const STAGE_ROLES: Readonly<Partial<Record<StageName, Role>>> = Object.freeze({
  answer: 'answer',
  review: 'review',
  ground_verdicts: 'grounding',
  indepth: 'indepth',
  gather: 'orchestrator',
  agree: 'second',
});

export const QUERY_ROLES: readonly Role[] = ['query_generate', 'query_review'];

type Fail = (rule: string) => never;

/** Every per-profile rule, in the order an operator would fix them (shape before order before policy). */
export function checkProfile(p: Profile): void {
  const fail: Fail = (rule) => {
    throw profileError(p.id, rule);
  };
  if (p.label.trim() === '') fail('label must not be blank');
  checkWorkflow(p, fail);
  if (p.workflow === 'catalyst_query') {
    checkCatalyst(p, fail);
  } else {
    checkNoQueryRoles(p, fail);
    checkPlanShape(p.stages, fail);
    checkTopology(p, fail);
    checkOrder(p.stages, p.policies.output, fail);
    checkReviewPolicy(p, fail);
    if (p.policies.output === 'product') checkProduct(p, fail);
  }
  checkContext(p, fail);
}

// ---- workflow and topology -------------------------------------------------------------------

function checkWorkflow(p: Profile, fail: Fail): void {
  if (p.workflow === 'catalyst_query' && p.topology !== 'caller') fail(`workflow 'catalyst_query' requires topology 'caller' (found '${p.topology}')`);
  if (p.topology === 'caller' && p.workflow !== 'catalyst_query') fail("topology 'caller' is only for workflow 'catalyst_query'");
}

/** Rule 1: the plan starts with `context`; only `gate` repeats. */
function checkPlanShape(stages: readonly StageName[], fail: Fail): void {
  if (stages.length === 0) fail('stages must not be empty');
  if (stages[0] !== 'context') fail(`stages must start with 'context' (found '${stages[0]}')`);
  const seen = new Set<StageName>();
  for (const s of stages) {
    if (seen.has(s) && s !== 'gate') fail(`stage '${s}' appears more than once (only 'gate' may repeat)`);
    seen.add(s);
  }
}

/** Rule 2: topology constraints and a model for every stage that calls one. */
function checkTopology(p: Profile, fail: Fail): void {
  if (p.topology === 'team' && !p.stages.includes('gather')) fail("topology 'team' requires a 'gather' stage");
  if (p.topology === 'single' && p.models.orchestrator) fail("topology 'single' may not declare an 'orchestrator' model");
  for (const stage of p.stages) {
    const role = STAGE_ROLES[stage];
    if (role && !p.models[role]) fail(`stage '${stage}' requires models.${role}`);
  }
  if (p.stages.includes('agree') && p.models.second === p.models.answer) {
    fail(`stage 'agree' needs a second writer different from the answer writer (both '${p.models.answer}')`);
  }
}

// ---- stage order (rules 3–7 and the Target `agree` stage) -------------------------------------

function checkOrder(stages: readonly StageName[], output: string, fail: Fail): void {
  const first = (s: StageName) => stages.indexOf(s);
  const last = (s: StageName) => stages.lastIndexOf(s);
  const has = (s: StageName) => stages.includes(s);
  const before = (a: StageName, b: StageName) => has(a) && has(b) && first(a) < first(b);

  // Rule 3: the first gate checks the fresh Answer, so nothing may run between them.
  if (has('answer') && stages[first('answer') + 1] !== 'gate') fail("stage 'answer' must be immediately followed by 'gate'");
  if (has('gather') && !before('gather', 'answer')) fail("stage 'gather' must come before 'answer'");
  // A gate only ever checks a freshly written or reviewed Answer.
  stages.forEach((s, i) => {
    if (s === 'gate' && stages[i - 1] !== 'answer' && stages[i - 1] !== 'review') fail("stage 'gate' must immediately follow 'answer' or 'review'");
  });
  // Rule 4: a reviewed Answer is re-gated unless the review itself is the output.
  if (has('review') && output !== 'review' && stages[first('review') + 1] !== 'gate') fail("stage 'review' must be immediately followed by 'gate'");
  // Rule 5.
  if (has('resolve_refs') && !before('answer', 'resolve_refs')) fail("stage 'resolve_refs' must come after 'answer'");
  if (has('resolve_refs') && has('review') && !before('resolve_refs', 'review')) fail("stage 'resolve_refs' must come before 'review'");
  // Rule 6.
  if (has('ground_verdicts') && !before('final_resolve_refs', 'ground_verdicts')) fail("stage 'ground_verdicts' requires an earlier 'final_resolve_refs'");
  if (has('ground_verdicts') && has('review') && !before('review', 'ground_verdicts')) fail("stage 'ground_verdicts' must come after 'review'");
  if (has('final_resolve_refs') && has('review') && !before('review', 'final_resolve_refs')) fail("stage 'final_resolve_refs' must come after 'review'");
  if (has('final_resolve_refs') && has('gate') && last('gate') > first('final_resolve_refs')) fail("stage 'final_resolve_refs' must come after the last 'gate'");
  // Rule 7.
  if (has('indepth_gate') && !before('indepth', 'indepth_gate')) fail("stage 'indepth_gate' must come after 'indepth'");
  checkAgreeOrder(stages, fail);
}

/** §7.9: the second writer checks the final, gated Answer, before In-Depth elaborates it. */
function checkAgreeOrder(stages: readonly StageName[], fail: Fail): void {
  const at = stages.indexOf('agree');
  if (at < 0) return;
  const answerAt = stages.indexOf('answer');
  if (answerAt < 0 || answerAt > at) fail("stage 'agree' must come after 'answer'");
  if (stages.lastIndexOf('gate') > at) fail("stage 'agree' must come after the last 'gate'");
  const frr = stages.indexOf('final_resolve_refs');
  if (frr > at) fail("stage 'agree' must come after 'final_resolve_refs'");
  const indepth = stages.indexOf('indepth');
  if (indepth >= 0 && indepth < at) fail("stage 'agree' must come before 'indepth'");
}

// ---- review policy (Target keys, decision 9) ----------------------------------------------------

function checkReviewPolicy(p: Profile, fail: Fail): void {
  const review = p.policies.review;
  const has = (s: StageName) => p.stages.includes(s);
  if (has('review') && !review) fail("stage 'review' requires policies.review (action: label)");
  if (review && !has('review')) fail("policies.review is set but the plan has no 'review' stage");
  if (has('ground_verdicts') && !review) fail("stage 'ground_verdicts' requires policies.review (no review policy ⇒ no ground_verdicts stage)");
  if (review && review.grounding !== 'off' && !has('ground_verdicts')) {
    fail(`policies.review.grounding '${review.grounding}' requires a 'ground_verdicts' stage`);
  }
}

// ---- product envelope (rule 8) --------------------------------------------------------------------

const PRODUCT_REQUIRED: readonly StageName[] = ['answer', 'gate', 'resolve_refs', 'final_resolve_refs'];
const PRODUCT_ORDER: readonly StageName[] = ['final_resolve_refs', 'ground_verdicts', 'indepth', 'indepth_gate'];

function checkProduct(p: Profile, fail: Fail): void {
  const has = (s: StageName) => p.stages.includes(s);
  for (const s of PRODUCT_REQUIRED) if (!has(s)) fail(`a product profile (policies.output: product) must include stage '${s}'`);
  // Target: ground_verdicts exactly when there is a review policy (checked, verify, agree; not bare/fast).
  if (p.policies.review && !has('ground_verdicts')) fail("a product profile with a review policy must include stage 'ground_verdicts'");
  if (has('indepth') && !has('indepth_gate')) fail("a product profile may omit 'indepth' but never its gate: 'indepth' requires 'indepth_gate'");
  const present = PRODUCT_ORDER.filter(has);
  for (let i = 1; i < present.length; i++) {
    if (p.stages.indexOf(present[i - 1]) > p.stages.indexOf(present[i])) {
      fail(`product stage order must be ${PRODUCT_ORDER.join(' < ')} ('${present[i]}' comes before '${present[i - 1]}')`);
    }
  }
  if (p.policies.temporalGate !== 'enforce') fail(`a product profile must set policies.temporal_gate: enforce (found '${p.policies.temporalGate}')`);
  if (p.policies.answerContract !== 'chart_answer') fail(`a product profile must use policies.answer_contract: chart_answer (found '${p.policies.answerContract}')`);
  if (!p.context.exactTokenizer) fail('a product profile must set context.exact_tokenizer: true (exact token budget)');
  if (p.context.window <= p.context.reservedOutputTokens) fail(budgetMessage(p));
}

function budgetMessage(p: Profile): string {
  return `context.window (${p.context.window}) must exceed context.reserved_output_tokens (${p.context.reservedOutputTokens})`;
}

// ---- context budget (rule 9) ----------------------------------------------------------------------

function checkContext(p: Profile, fail: Fail): void {
  // An exact budget without room for input would reject every request.
  if (p.context.exactTokenizer && p.context.window <= p.context.reservedOutputTokens) fail(budgetMessage(p));
  const seen = new Set<string>();
  for (const src of p.context.supplementalSources) {
    if (src.trim() === '') fail('context.supplemental_sources has a blank entry');
    if (seen.has(src)) fail(`context.supplemental_sources lists '${src}' more than once`);
    seen.add(src);
  }
}

// ---- Catalyst query profiles (rule 11) --------------------------------------------------------------

/** Roles named anywhere in a profile's role maps (models, prompts, knobs). */
function rolesUsed(p: Profile): Array<[Role, string]> {
  const out: Array<[Role, string]> = [];
  for (const [where, map] of [['models', p.models], ['prompts', p.prompts], ['knobs', p.knobs]] as const) {
    for (const role of Object.keys(map) as Role[]) out.push([role, where]);
  }
  return out;
}

function checkNoQueryRoles(p: Profile, fail: Fail): void {
  for (const [role, where] of rolesUsed(p)) {
    if (QUERY_ROLES.includes(role)) fail(`role '${role}' (in ${where}) is only for workflow 'catalyst_query' profiles`);
  }
}

function checkCatalyst(p: Profile, fail: Fail): void {
  // Catalyst orchestrates the roles itself; a hub-run plan would never execute.
  if (p.stages.length > 0) fail("a catalyst_query profile has no hub-run stages (Catalyst orchestrates the roles): remove 'stages'");
  // /v1/models picks a default among product profiles; a caller-orchestrated profile cannot answer a chat.
  if (p.isDefault) fail('a catalyst_query profile cannot be the default profile');
  if (p.visibility === 'product') fail("a catalyst_query profile cannot have visibility 'product'");
  for (const [role, where] of rolesUsed(p)) {
    if (!QUERY_ROLES.includes(role)) fail(`a catalyst_query profile may only use roles ${QUERY_ROLES.join(', ')} (found '${role}' in ${where})`);
  }
  if (!p.models.query_generate) fail('a catalyst_query profile requires models.query_generate');
  for (const role of QUERY_ROLES) if (p.models[role]) checkQueryRole(p, role, fail);
  if (p.policies.collaborativeReview) checkCollaborative(p, fail);
}

function checkQueryRole(p: Profile, role: Role, fail: Fail): void {
  if (!p.prompts[role]) fail(`role '${role}' requires prompts.${role} (query roles have no fallback prompt)`);
  const knobs = p.knobs[role];
  for (const key of ['temperature', 'dry'] as const) {
    const v = knobs?.[key];
    // Catalyst compares evidence numerically: 0, never false or a missing value.
    if (typeof v !== 'number' || v !== 0) fail(`knobs.${role}.${key} must be the number 0 (found ${JSON.stringify(v ?? null)})`);
  }
  // The output allowance is part of the role's evidence (maxTokens) and of its exact fit check.
  if (knobs?.max_tokens === undefined) fail(`knobs.${role}.max_tokens is required (the role's output allowance)`);
}

function checkCollaborative(p: Profile, fail: Fail): void {
  if (!p.models.query_review) fail('policies.collaborative_review: true requires models.query_review');
  const classes = p.policies.modelClasses ?? {};
  const gen = classes.query_generate;
  const rev = classes.query_review;
  if (!gen || !rev) fail('policies.collaborative_review: true requires model_classes.query_generate and model_classes.query_review');
  if (gen === rev) fail(`policies.collaborative_review: true requires distinct model_classes for query_generate and query_review (both '${gen}')`);
}

// ---- catalogue-wide -----------------------------------------------------------------------------------

/** Rule 10: exactly one yaml profile is the preferred default. */
export function checkSingleDefault(profiles: readonly Profile[]): void {
  const defaults = profiles.filter((p) => p.isDefault).map((p) => p.id);
  if (defaults.length !== 1) {
    const found = defaults.length === 0 ? 'found 0' : `found ${defaults.length}: ${defaults.join(', ')}`;
    throw new ProfileConfigError(`profiles: exactly one profile must have default: true (${found})`);
  }
}
