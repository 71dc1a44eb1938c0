/**
 * Low-level legs (hub-contract §4.5): dynamic model ids such as
 * `answer:gemma-4-12b@synthesis-chartsearchai~warn~temp0` that compile to a one-role profile.
 *
 *   leg    := prefix writer [ "@" prompt ] { "~" option }
 *   option := "off" | "warn" | "enforce"   (at most one)
 *           | "temp" number                 (at most one; float ≥ 0)
 *
 * Parsing never consults the router or the prompt directory; the catalogue checks the prompt file
 * before any router call (decision 21).
 */
import { HubError } from '../errors';
import { deepFreeze } from './compiler';
import { PROMPT_STEM_PATTERN } from './levels-schema';
import type { GateMode, OutputMode, Profile, ReviewPolicy, Role, StageName } from './types';

interface LegKind {
  prefix: string;
  role: Role;
  stages: readonly StageName[];
  output: OutputMode;
  prompt: string;
  gate: GateMode;
}

/** Tried in this order: `answer:` is a prefix of neither of the others, but keep the contract order. */
const LEG_KINDS: readonly LegKind[] = [
  { prefix: 'answer-review:', role: 'review', stages: ['context', 'review'], output: 'review', prompt: 'validation-rewrite', gate: 'enforce' },
  { prefix: 'indepth-only:', role: 'indepth', stages: ['context', 'indepth'], output: 'indepth', prompt: 'synthesis-indepth', gate: 'off' },
  { prefix: 'answer:', role: 'answer', stages: ['context', 'answer', 'gate'], output: 'bare', prompt: 'synthesis-chartsearchai', gate: 'off' },
];

const GATE_OPTIONS: readonly string[] = ['off', 'warn', 'enforce'];
const STEM_RE = new RegExp(PROMPT_STEM_PATTERN);
// A writer is a router model id: anything but the grammar's separators and whitespace.
const WRITER_RE = /^[^\s@~]+$/;
const TEMP_RE = /^temp(\d+(?:\.\d+)?)$/;

/** A review leg has no ground_verdicts stage, so its (label-only) review never grounds citations. */
const LEG_REVIEW_POLICY: ReviewPolicy = { action: 'label', grounding: 'off', groundingTemperature: null, groundingRepeatPenalty: null };

interface LegParts {
  writer: string;
  prompt: string | null;
  gate: GateMode | null;
  temperature: number | null;
}

/** The compiled leg for `id`, null when no leg prefix matches; an invalid leg throws model_not_found. */
export function parseLeg(id: string): Profile | null {
  const kind = LEG_KINDS.find((k) => id.startsWith(k.prefix));
  if (!kind) return null;
  const parts = parseParts(id, id.slice(kind.prefix.length));
  return compileLeg(id, kind, parts);
}

function invalid(id: string, why: string): HubError {
  return new HubError('model_not_found', `model '${id}' is not a valid low-level leg: ${why}`, { extra: { model: id } });
}

function parseParts(id: string, body: string): LegParts {
  const [head, ...options] = body.split('~');
  const at = head.indexOf('@');
  const writer = at < 0 ? head : head.slice(0, at);
  const prompt = at < 0 ? null : head.slice(at + 1);
  if (writer === '') throw invalid(id, 'the writer model is empty');
  if (!WRITER_RE.test(writer)) throw invalid(id, `the writer '${writer}' is not a model id`);
  if (prompt !== null && prompt === '') throw invalid(id, "'@' must be followed by a prompt name");
  // Prompt names become file names: refuse anything that could leave the prompt directory.
  if (prompt !== null && !STEM_RE.test(prompt)) throw invalid(id, `'${prompt}' is not a valid prompt name`);
  const parts: LegParts = { writer, prompt, gate: null, temperature: null };
  for (const opt of options) applyOption(id, opt, parts);
  return parts;
}

function applyOption(id: string, opt: string, parts: LegParts): void {
  if (opt === '') throw invalid(id, "empty option ('~~' or a trailing '~')");
  if (GATE_OPTIONS.includes(opt)) {
    if (parts.gate !== null) throw invalid(id, `more than one gate option ('${parts.gate}', '${opt}')`);
    parts.gate = opt as GateMode;
    return;
  }
  if (opt.startsWith('temp') && !opt.startsWith('temperature')) {
    const m = TEMP_RE.exec(opt);
    if (!m) throw invalid(id, `'${opt}' needs a number ≥ 0 after 'temp' (e.g. temp0, temp0.7)`);
    if (parts.temperature !== null) throw invalid(id, 'more than one temp option');
    parts.temperature = Number(m[1]);
    return;
  }
  throw invalid(id, `unknown option '${opt}' (expected off, warn, enforce or temp<number>)`);
}

function compileLeg(id: string, kind: LegKind, parts: LegParts): Profile {
  const profile: Profile = {
    id,
    label: id,
    workflow: 'clinical_answer',
    topology: 'leg',
    stages: [...kind.stages],
    models: { [kind.role]: parts.writer },
    prompts: { [kind.role]: parts.prompt ?? kind.prompt },
    policies: {
      output: kind.output,
      // Legs keep the caller's response_format (possibly none).
      answerContract: null,
      temporalGate: parts.gate ?? kind.gate,
      temporalRender: 'full',
      drugSafety: false,
      anchor: null,
      reviewLoops: 1,
      review: kind.role === 'review' ? { ...LEG_REVIEW_POLICY } : null,
      confidence: 'levels',
    },
    visibility: 'internal',
    isDefault: false,
    selectionPriority: 1000,
    aliases: [],
    // No budget: legs are raw research calls without an exact tokenizer.
    context: { window: 0, reservedOutputTokens: 0, exactTokenizer: false, supplementalSources: [] },
    knobs: parts.temperature === null ? {} : { [kind.role]: { temperature: parts.temperature } },
    lowLevelLeg: true,
    staged: false,
    validation: kind.stages.includes('review'),
  };
  return deepFreeze(profile);
}
