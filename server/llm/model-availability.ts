/**
 * Whether a profile can run on the model backend's current inventory, and the inventory as the wire reports
 * it: shared by `GET /v1/models` and the Catalyst discovery document, so both say the same thing.
 */
import { requiredModels, type Profile } from '../profiles';
import type { MissingModelHint, ModelInventory } from './types';

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

export function availability(profile: Profile, inv: ModelInventory): Availability {
  if (!inv.reachable) return { available: false, reasons: ['model_backend_unreachable'], details: [{ reason: 'model_backend_unreachable', advice: UNREACHABLE_ADVICE }] };
  const advertised = new Set(inv.ids);
  const missing = requiredModels(profile).filter((m) => !advertised.has(m));
  // The reason strings stay `model_not_loaded:<id>` (hub-contract §2.2: clients parse them); the file is in `details`.
  const reasons = missing.map((m) => (failed(inv, m) ? `model_failed:${m}` : `model_not_loaded:${m}`));
  const details = missing.map((m, i): UnavailableDetail => ({ reason: reasons[i], ...(inv.missingModel?.(m) ?? { model: m, advice: `The model backend does not list model '${m}'.` }) }));
  return { available: reasons.length === 0, reasons, details };
}

/** The versioned inventory object; `served_by` and `backends` only with LLM_BACKENDS (one backend: the wire as before). */
export function backendInventory(inv: ModelInventory) {
  return {
    contract_version: INVENTORY_CONTRACT,
    catalog_reachable: inv.reachable,
    advertised_model_ids: [...inv.ids],
    ...(inv.notes?.length ? { notes: [...inv.notes] } : {}),
    ...(inv.servedBy ? { served_by: inv.servedBy } : {}),
    ...(inv.backends ? { backends: inv.backends.map((b) => ({ ...b })) } : {}),
  };
}
