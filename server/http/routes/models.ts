/** `GET /v1/models`: the profile catalogue with live router availability (§2.2). Legs are never listed. */
import type { Request, Response } from 'express';
import type { MissingModelHint, ModelInventory, RouterClient } from '../../llm/types';
import { requiredModels, type Profile } from '../../profiles/types';

export const INVENTORY_CONTRACT = 'med-agent-hub.backend-model-inventory.v1';

export interface Availability {
  available: boolean;
  reasons: string[];
  /** One per reason, in the same order: the reason, and for a model what to do (the embedded engine: the file it looks for). */
  details: UnavailableDetail[];
}

export type UnavailableDetail = { reason: string } & Partial<MissingModelHint>;

const UNREACHABLE_ADVICE = 'The model backend could not be queried: check that the llama.cpp router at LLM_BASE_URL is running.';

/** A model the backend knows but cannot load (a corrupt or missing GGUF file). */
function failed(inv: ModelInventory, model: string): boolean {
  const status = Object.hasOwn(inv.entries, model) ? inv.entries[model].status : undefined;
  return typeof status === 'object' && status !== null && (status as { failed?: unknown }).failed === true;
}

/** Shared with the Catalyst discovery document, so both report availability the same way. */
export function availability(profile: Profile, inv: ModelInventory): Availability {
  if (!inv.reachable) return { available: false, reasons: ['model_backend_unreachable'], details: [{ reason: 'model_backend_unreachable', advice: UNREACHABLE_ADVICE }] };
  const advertised = new Set(inv.ids);
  const missing = requiredModels(profile).filter((m) => !advertised.has(m));
  // The reason strings stay `model_not_loaded:<id>` (hub-contract §2.2: clients parse them); the file is in `details`.
  const reasons = missing.map((m) => (failed(inv, m) ? `model_failed:${m}` : `model_not_loaded:${m}`));
  const details = missing.map((m, i): UnavailableDetail => ({ reason: reasons[i], ...(inv.missingModel?.(m) ?? { model: m, advice: `The model backend does not list model '${m}'.` }) }));
  return { available: reasons.length === 0, reasons, details };
}

/** Effective default: the yaml default when available, else the available product profile with the lowest (priority, id). */
export function effectiveDefault(profiles: readonly Profile[], avail: ReadonlyMap<string, Availability>): string | null {
  const candidates = profiles.filter((p) => p.visibility === 'product' && avail.get(p.id)?.available);
  const preferred = candidates.find((p) => p.isDefault);
  if (preferred) return preferred.id;
  const sorted = [...candidates].sort((a, b) => a.selectionPriority - b.selectionPriority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sorted[0]?.id ?? null;
}

export function backendInventory(inv: ModelInventory) {
  return { contract_version: INVENTORY_CONTRACT, catalog_reachable: inv.reachable, advertised_model_ids: [...inv.ids], ...(inv.notes?.length ? { notes: [...inv.notes] } : {}) };
}

export function modelsDocument(profiles: readonly Profile[], inv: ModelInventory, now = Math.floor(Date.now() / 1000)) {
  const avail = new Map(profiles.map((p) => [p.id, availability(p, inv)] as const));
  const dflt = effectiveDefault(profiles, avail);
  const entry = (p: Profile) => ({
    id: p.id,
    object: 'model',
    created: now,
    owned_by: 'med-agent-hub',
    label: p.label,
    staged: p.staged,
    validation: p.validation,
    temporal_enforcement: p.policies.temporalGate ?? 'off',
    available: avail.get(p.id)!.available,
    default: p.id === dflt,
    selection_priority: p.selectionPriority,
    topology: p.topology,
    visibility: p.visibility,
    stages: [...p.stages],
    required_models: requiredModels(p),
    context_window: p.context.window > 0 ? p.context.window : null,
    exact_tokenizer: p.context.exactTokenizer,
    unavailable_reasons: avail.get(p.id)!.reasons,
    unavailable_details: avail.get(p.id)!.details,
  });
  // Aliases follow the catalogue in yaml order: the canonical profile's facts under the pinned id, never
  // the default (exactly one item is), so a client that knows only the [REF] id sees what will serve it.
  const aliases = profiles.flatMap((p) => p.aliases.map((alias) => ({ ...entry(p), id: alias, default: false, alias_of: p.id })));
  return { object: 'list', data: [...profiles.map(entry), ...aliases], backend: backendInventory(inv) };
}

export function modelsHandler(deps: { router: RouterClient; profiles: () => readonly Profile[] }) {
  return async (_req: Request, res: Response): Promise<void> => {
    const inv = await deps.router.listModels();
    res.json(modelsDocument(deps.profiles(), inv));
  };
}
