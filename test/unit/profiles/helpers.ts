/** Minimal valid profile specs for the compiler tables; each builder returns a fresh object to mutate. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');
export const SHIPPED_PROMPTS = path.join(ROOT, 'prompts');
export const SHIPPED_LEVELS = path.join(ROOT, 'profiles/levels.yaml');

export type Spec = Record<string, any>;

/** A prompt directory holding exactly `stems` (plus the defaults the builders below need). */
export function promptsDir(stems: string[] = DEFAULT_STEMS): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-prompts-'));
  for (const s of stems) fs.writeFileSync(path.join(dir, `${s}.txt`), `prompt ${s}\n`);
  return dir;
}

export const DEFAULT_STEMS = [
  'synthesis-answer', 'synthesis-indepth', 'synthesis-chartsearchai', 'validation-rewrite-answer', 'validation-rewrite-indepth',
  'orchestrator', 'medical_expert', 'q-gen', 'q-rev',
];

export function doc(profiles: Record<string, Spec>): Spec {
  return { profiles };
}

/** eval-style: [context, answer, gate], bare output. */
export function evalSpec(extra: Spec = {}): Spec {
  return { label: 'Eval', topology: 'single', stages: ['context', 'answer', 'gate'], models: { answer: 'm' }, policies: { output: 'bare' }, default: true, ...extra };
}

export const BARE_PLAN = ['context', 'answer', 'gate', 'resolve_refs', 'final_resolve_refs', 'indepth', 'indepth_gate'];
export const CHECKED_PLAN = ['context', 'answer', 'gate', 'resolve_refs', 'review', 'gate', 'final_resolve_refs', 'ground_verdicts', 'indepth', 'indepth_gate'];

/** A valid product profile without review (single-12b-bare shape). */
export function productSpec(extra: Spec = {}): Spec {
  return {
    label: 'Product',
    topology: 'single',
    stages: [...BARE_PLAN],
    models: { answer: 'w', indepth: 'w' },
    policies: { output: 'product', temporal_gate: 'enforce', drug_safety: true },
    visibility: 'product',
    default: true,
    context: { window: 24576, reserved_output_tokens: 4096, exact_tokenizer: true },
    knobs: { answer: { temperature: 0 } },
    ...extra,
  };
}

/** A valid reviewed product profile (single-12b-checked shape). */
export function checkedSpec(extra: Spec = {}): Spec {
  return productSpec({
    stages: [...CHECKED_PLAN],
    models: { answer: 'w', indepth: 'w', review: 'w', grounding: 'w' },
    policies: { output: 'product', temporal_gate: 'enforce', review: { action: 'label', grounding: 'separate' } },
    ...extra,
  });
}

/** A valid Catalyst query profile. */
export function catalystSpec(extra: Spec = {}): Spec {
  return {
    label: 'Catalyst',
    workflow: 'catalyst_query',
    topology: 'caller',
    models: { query_generate: 'g', query_review: 'r' },
    prompts: { query_generate: 'q-gen', query_review: 'q-rev' },
    policies: { generation_attempts: 3, collaborative_review: true, model_classes: { query_generate: 'gemma-4', query_review: 'qwen2.5' } },
    knobs: { query_generate: { temperature: 0, dry: 0, max_tokens: 1024 }, query_review: { temperature: 0, dry: 0, max_tokens: 2048 } },
    ...extra,
  };
}

/** Writes `text` as a levels.yaml in a fresh directory and returns its path. */
export function writeLevels(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-levels-'));
  const file = path.join(dir, 'levels.yaml');
  fs.writeFileSync(file, text);
  return file;
}
