/**
 * levels.yaml (already parsed) → frozen Profile[] (hub-contract §4.1–§4.2).
 *
 * Three passes: the JSON Schema checks shape, `buildProfile` applies the documented defaults and
 * fallback prompt stems, rules.ts checks the plan and policies, and finally every referenced prompt
 * file must exist. Any violation throws ProfileConfigError so start-up stops (decision 10).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020';
import { compileConstant, constantSchemaAjv } from '../json-schemas';
import addFormats from 'ajv-formats';
import { LEVELS_SCHEMA } from './levels-schema';
import { checkAliases } from './aliases';
import { checkProfile, checkSingleDefault, profileError, ProfileConfigError, STAGE_ROLES } from './rules';
import type {
  AnswerContract, GateMode, OutputMode, Policies, Profile, ReviewPolicy, Role, RoleKnobs, StageName, Topology, Visibility, Workflow,
} from './types';

export { ProfileConfigError } from './rules';

/** The yaml spec of one profile after schema validation (snake_case, defaults not yet applied). */
interface RawProfile {
  label: string;
  workflow?: Workflow;
  topology: Topology;
  stages?: StageName[];
  models?: Partial<Record<Role, string>>;
  prompts?: Partial<Record<Role, string>>;
  policies?: RawPolicies;
  visibility?: Visibility;
  default?: boolean;
  selection_priority?: number;
  aliases?: string[];
  context?: { window?: number; reserved_output_tokens?: number; exact_tokenizer?: boolean; supplemental_sources?: string | string[] };
  knobs?: Partial<Record<Role, RawKnobs>>;
}

type RawKnobs = { [K in keyof RoleKnobs]?: number | null };

interface RawPolicies {
  output?: OutputMode;
  answer_contract?: AnswerContract;
  temporal_gate?: GateMode;
  temporal_render?: 'full' | 'compact';
  drug_safety?: boolean;
  anchor?: string | null;
  review_loops?: number;
  review?: {
    action: string;
    grounding?: ReviewPolicy['grounding'];
    confidence?: Policies['confidence'];
    grounding_temperature?: number;
    grounding_repeat_penalty?: number;
  };
  confidence?: Policies['confidence'];
  generation_attempts?: number;
  collaborative_review?: boolean;
  model_classes?: Record<string, string>;
  allowed_operation?: string;
}

interface LevelsDoc {
  profiles: Record<string, RawProfile>;
}

/** Stems used when a role has no prompt configured (§4.1). */
export const FALLBACK_PROMPTS: Readonly<Partial<Record<Role, string>>> = Object.freeze({
  answer: 'synthesis-answer',
  review: 'validation-rewrite',
  indepth: 'synthesis-indepth',
  orchestrator: 'orchestrator',
  expert: 'medical_expert',
});

const QUERY_POLICY_KEYS = ['generation_attempts', 'collaborative_review', 'model_classes', 'allowed_operation'] as const;

// Compiled once (decision 11); ajv-formats supplies `date` for policies.anchor.
const ajv = constantSchemaAjv({ allErrors: false, verbose: true, strict: true });
addFormats(ajv);
const validateLevels = compileConstant<LevelsDoc>(ajv, LEVELS_SCHEMA);

export function compileProfiles(doc: unknown, opts: { promptsDir: string }): Profile[] {
  if (!validateLevels(doc)) throw schemaError(validateLevels.errors ?? []);
  const profiles = Object.entries(doc.profiles).map(([id, raw]) => buildProfile(id, raw));
  profiles.forEach(checkProfile);
  checkSingleDefault(profiles);
  checkAliases(profiles);
  for (const p of profiles) checkPromptFiles(p, opts.promptsDir);
  return profiles.map(deepFreeze);
}

// ---- schema errors ---------------------------------------------------------------------------------

function schemaError(errors: ErrorObject[]): ProfileConfigError {
  // An anyOf failure also reports each branch's error; the anyOf error itself reads best.
  const e = errors.find((x) => x.keyword === 'anyOf') ?? errors[0];
  if (!e) return new ProfileConfigError('invalid profile catalogue');
  const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (segments[0] === 'profiles' && segments.length >= 2) {
    return profileError(segments[1], describeSchemaError(e, segments.slice(2), 'profile'));
  }
  return new ProfileConfigError(describeSchemaError(e, segments, 'the catalogue'));
}

function describeSchemaError(e: ErrorObject, segments: string[], top: string): string {
  const where = segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '');
  const subject = where === '' ? top : where;
  // Scalars are quoted back to the operator; objects and arrays would only add noise.
  const found = e.data === undefined || (typeof e.data === 'object' && e.data !== null) ? '' : ` (found ${JSON.stringify(e.data)})`;
  if (segments[0] === 'stages' && segments.length === 2 && e.keyword === 'enum') return `unknown stage '${String(e.data)}'`;
  if (e.propertyName !== undefined) return describeBadKey(e, subject, e.propertyName);
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown ${top === 'profile' ? '' : 'top-level '}key '${String((e.params as { additionalProperty: string }).additionalProperty)}'${where ? ` in ${where}` : ''}`;
    case 'required':
      return `missing required ${top === 'profile' ? '' : 'top-level '}key '${String((e.params as { missingProperty: string }).missingProperty)}'${where ? ` in ${where}` : ''}`;
    case 'enum':
      return `${subject} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}${found}`;
    case 'anyOf':
      return `${subject} is invalid${found}: expected ${String((e.parentSchema as { description?: string } | undefined)?.description ?? 'another value')}`;
    case 'minProperties':
      return where === 'profiles' ? 'profiles must contain at least one profile' : `${subject} ${e.message ?? ''}`;
    default:
      return `${subject} ${e.message ?? 'is invalid'}${found}`;
  }
}

/** A key rejected by `propertyNames`: an unknown role, or a profile id outside the id grammar. */
function describeBadKey(e: ErrorObject, subject: string, key: string): string {
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  if (allowed) return `${subject} has an unknown role '${key}' (allowed: ${allowed.join(', ')})`;
  if (subject === 'profiles') return `profile id '${key}' is invalid: use letters, digits, '.', '_' and '-' (a ':' would collide with low-level legs)`;
  return `${subject} has an invalid key '${key}' (${e.message ?? 'invalid'})`;
}

// ---- defaults ---------------------------------------------------------------------------------------

function buildProfile(id: string, raw: RawProfile): Profile {
  const workflow = raw.workflow ?? 'clinical_answer';
  const stages = [...(raw.stages ?? [])];
  const models = { ...(raw.models ?? {}) };
  const policies = buildPolicies(id, raw, workflow);
  return {
    id,
    label: raw.label,
    workflow,
    topology: raw.topology,
    stages,
    models,
    prompts: withFallbackPrompts(raw.prompts ?? {}, models, stages),
    policies,
    visibility: raw.visibility ?? 'experimental',
    isDefault: raw.default === true,
    selectionPriority: raw.selection_priority ?? 1000,
    aliases: [...(raw.aliases ?? [])],
    context: {
      window: raw.context?.window ?? 0,
      reservedOutputTokens: raw.context?.reserved_output_tokens ?? 0,
      exactTokenizer: raw.context?.exact_tokenizer ?? false,
      supplementalSources: toList(raw.context?.supplemental_sources),
    },
    knobs: copyKnobs(raw.knobs ?? {}),
    lowLevelLeg: false,
    // Discovery flags are derived from the plan, never configured (§4.1).
    staged: policies.output === 'product',
    validation: stages.includes('review'),
  };
}

function buildPolicies(id: string, raw: RawProfile, workflow: Workflow): Policies {
  const rp = raw.policies ?? {};
  const output = rp.output ?? 'bare';
  const policies: Policies = {
    output,
    answerContract: rp.answer_contract ?? (output === 'product' ? 'chart_answer' : 'caller'),
    temporalGate: rp.temporal_gate ?? 'off',
    temporalRender: rp.temporal_render ?? 'full',
    drugSafety: rp.drug_safety ?? false,
    anchor: rp.anchor ?? null,
    reviewLoops: rp.review_loops ?? 1,
    review: buildReviewPolicy(id, rp, raw.knobs?.grounding),
    confidence: confidenceOf(id, rp),
  };
  if (workflow === 'catalyst_query') {
    policies.generationAttempts = rp.generation_attempts ?? 2;
    policies.collaborativeReview = rp.collaborative_review ?? false;
    if (rp.model_classes) policies.modelClasses = { ...rp.model_classes };
    if (rp.allowed_operation) policies.allowedOperation = rp.allowed_operation;
  } else {
    const stray = QUERY_POLICY_KEYS.find((k) => rp[k] !== undefined);
    if (stray) throw profileError(id, `policies.${stray} is only for workflow 'catalyst_query' profiles`);
  }
  return policies;
}

/** Rule 12 / decision 9: the reviewer labels; `apply` and `redo` are reserved and refused. */
function buildReviewPolicy(id: string, rp: RawPolicies, groundingKnobs: RawKnobs | undefined): ReviewPolicy | null {
  const r = rp.review;
  if (!r) return null;
  if (r.action !== 'label') {
    throw profileError(id, `policies.review.action '${r.action}' is refused: only 'label' is supported (review labels, never rewrites; decision 9)`);
  }
  return {
    action: 'label',
    grounding: r.grounding ?? 'separate',
    // One place for the checker's sampling; knobs.grounding is accepted as the generic spelling.
    groundingTemperature: r.grounding_temperature ?? groundingKnobs?.temperature ?? null,
    groundingRepeatPenalty: r.grounding_repeat_penalty ?? groundingKnobs?.repeat_penalty ?? null,
  };
}

function confidenceOf(id: string, rp: RawPolicies): Policies['confidence'] {
  const top = rp.confidence;
  const nested = rp.review?.confidence;
  if (top && nested && top !== nested) {
    throw profileError(id, `policies.confidence '${top}' and policies.review.confidence '${nested}' disagree`);
  }
  return top ?? nested ?? 'levels';
}

/** A role the profile calls (has a model, or a stage needs it) gets its documented fallback stem. */
function withFallbackPrompts(prompts: Partial<Record<Role, string>>, models: Partial<Record<Role, string>>, stages: StageName[]): Partial<Record<Role, string>> {
  const out = { ...prompts };
  const used = new Set<Role>(Object.keys(models) as Role[]);
  for (const s of stages) {
    const role = STAGE_ROLES[s];
    if (role) used.add(role);
  }
  for (const role of used) {
    const fallback = FALLBACK_PROMPTS[role];
    if (out[role] === undefined && fallback) out[role] = fallback;
  }
  return out;
}

/** Null knob values mean "not set" (§4.6), so they are dropped rather than compiled. */
function copyKnobs(knobs: Partial<Record<Role, RawKnobs>>): Partial<Record<Role, RoleKnobs>> {
  const out: Partial<Record<Role, RoleKnobs>> = {};
  for (const [role, k] of Object.entries(knobs) as Array<[Role, RawKnobs]>) {
    out[role] = Object.fromEntries(Object.entries(k).filter(([, v]) => v !== null && v !== undefined)) as RoleKnobs;
  }
  return out;
}

function toList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return typeof v === 'string' ? [v] : [...v];
}

// ---- prompt files (rule 10) -------------------------------------------------------------------------

export interface PromptFileRef {
  role: Role;
  /** The configured stem (for `review` the family stem). */
  stem: string;
  /** The file stem actually read (`<family>-answer` / `<family>-indepth` for review). */
  file: string;
}

/** Every prompt file a profile reads; the review stem is a family (§4.1). */
export function promptFiles(p: Pick<Profile, 'prompts' | 'stages'>): PromptFileRef[] {
  const refs: PromptFileRef[] = [];
  for (const [role, stem] of Object.entries(p.prompts) as Array<[Role, string]>) {
    if (role !== 'review') {
      refs.push({ role, stem, file: stem });
      continue;
    }
    refs.push({ role, stem, file: `${stem}-answer` });
    if (p.stages.includes('indepth')) refs.push({ role, stem, file: `${stem}-indepth` });
  }
  return refs;
}

/** The first prompt file of `p` missing from `promptsDir`, or null (`exists` defaults to a stat of the file). */
export function findMissingPrompt(p: Pick<Profile, 'prompts' | 'stages'>, promptsDir: string, exists: (file: string) => boolean = isFile): PromptFileRef | null {
  return promptFiles(p).find((ref) => !exists(path.join(promptsDir, `${ref.file}.txt`))) ?? null;
}

function checkPromptFiles(p: Profile, promptsDir: string): void {
  const missing = findMissingPrompt(p, promptsDir);
  if (!missing) return;
  const family = missing.file === missing.stem ? '' : `, family '${missing.stem}'`;
  throw profileError(p.id, `prompt file '${displayPath(promptsDir, missing.file)}' is missing (role ${missing.role}${family})`);
}

/** Shown relative to the working directory when it lies inside it (`prompts/foo.txt`). */
export function displayPath(promptsDir: string, file: string): string {
  const full = path.resolve(promptsDir, `${file}.txt`);
  const rel = path.relative(process.cwd(), full);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : full;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// ---- immutability -----------------------------------------------------------------------------------

/** Compiled profiles are shared by every request; freezing makes an accidental write throw. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
