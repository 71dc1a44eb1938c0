/** The compiled profile: plain frozen data the engine walks (it never branches on a profile id). */

export const STAGE_NAMES = [
  'context',
  'gather',
  'answer',
  'gate',
  'resolve_refs',
  'review',
  'final_resolve_refs',
  'ground_verdicts',
  'agree',
  'indepth',
  'indepth_gate',
] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export const ROLES = ['answer', 'review', 'grounding', 'indepth', 'orchestrator', 'expert', 'second', 'query_generate', 'query_review'] as const;
export type Role = (typeof ROLES)[number];

export type OutputMode = 'bare' | 'combined' | 'product' | 'review' | 'indepth';
export type AnswerContract = 'caller' | 'chart_answer';
export type GateMode = 'off' | 'warn' | 'enforce';
export type Topology = 'single' | 'team' | 'leg' | 'caller';
export type Workflow = 'clinical_answer' | 'catalyst_query';
export type Visibility = 'product' | 'evaluation' | 'debug' | 'internal' | 'experimental';

export interface RoleKnobs {
  temperature?: number;
  repeat_penalty?: number;
  dry?: number;
  max_tokens?: number;
}

export interface ReviewPolicy {
  action: 'label';
  grounding: 'separate' | 'folded' | 'off';
  /** Sampling of the grounding checker (Target: 0.7 with repetition penalty off for Qwen 3 checkers). */
  groundingTemperature: number | null;
  groundingRepeatPenalty: number | null;
}

export interface Policies {
  output: OutputMode;
  /** null for low-level legs (they keep the caller's response_format). */
  answerContract: AnswerContract | null;
  temporalGate: GateMode;
  temporalRender: 'full' | 'compact';
  drugSafety: boolean;
  anchor: string | null;
  reviewLoops: number;
  review: ReviewPolicy | null;
  confidence: 'levels' | 'findings';
  /** Catalyst query profiles only. */
  generationAttempts?: number;
  collaborativeReview?: boolean;
  modelClasses?: Readonly<Record<string, string>>;
  allowedOperation?: string;
}

export interface ContextBudget {
  /** Model context window in tokens; 0 when unknown (legs). */
  window: number;
  reservedOutputTokens: number;
  exactTokenizer: boolean;
  supplementalSources: readonly string[];
}

export interface Profile {
  id: string;
  label: string;
  workflow: Workflow;
  topology: Topology;
  stages: readonly StageName[];
  /** role → router model id */
  models: Readonly<Partial<Record<Role, string>>>;
  /** role → prompt file stem (fallback stems applied). For `review` the stem is a family (`<stem>-answer`, `<stem>-indepth`). */
  prompts: Readonly<Partial<Record<Role, string>>>;
  policies: Readonly<Policies>;
  visibility: Visibility;
  isDefault: boolean;
  selectionPriority: number;
  /** Other ids that resolve to this profile (listed in /v1/models with `alias_of`); [] when none. */
  aliases: readonly string[];
  context: Readonly<ContextBudget>;
  knobs: Readonly<Partial<Record<Role, Readonly<RoleKnobs>>>>;
  lowLevelLeg: boolean;
  /** Derived: `policies.output == "product"`. */
  staged: boolean;
  /** Derived: the plan contains `review`. */
  validation: boolean;
}

/** The product-profile test of `context.require_product_profile` (§2.1). */
export function isProductProfile(p: Profile): boolean {
  return p.visibility === 'product' && p.policies.output === 'product';
}

/** Sorted distinct router model ids a profile needs. */
export function requiredModels(p: Profile): string[] {
  return [...new Set(Object.values(p.models).filter((m): m is string => typeof m === 'string' && m !== ''))].sort();
}
