/**
 * `GET /v1/hub/query-profiles` (clients.md §5): the query profiles with their role evidence, live
 * availability and the shared backend inventory. It answers within ROUTER_DISCOVERY_TIMEOUT_SECONDS
 * whatever the backend does: Catalyst gives discovery 5 s and fails closed after that.
 */
import type { Request, Response } from 'express';
import { availability, backendInventory, type ModelInventory, type RouterClient } from '../llm';
import { requiredModels, type Catalog, type Profile } from '../profiles';
import { profileEvidence, queryPolicies, queryProfiles, roleKnobs, roleModels } from './query-profiles';

export interface DiscoveryDeps {
  catalog: Catalog;
  router: RouterClient;
  providerId: string;
  discoveryTimeoutMs: number;
}

const UNREACHABLE: ModelInventory = { reachable: false, ids: [], entries: {} };

/**
 * The live inventory, or "unreachable" once the timeout passes. The router client bounds its own call
 * too; this guard holds for any backend (a hung socket, an engine that never answers).
 */
export async function inventoryWithin(router: RouterClient, timeoutMs: number, signal?: AbortSignal): Promise<ModelInventory> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let onAbort: (() => void) | undefined;
  const expired = new Promise<ModelInventory>((resolve) => {
    onAbort = () => resolve(UNREACHABLE);
    if (combined.aborted) onAbort();
    else combined.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([router.listModels({ signal: combined }).catch(() => UNREACHABLE), expired]);
  } finally {
    if (onAbort) combined.removeEventListener('abort', onAbort);
  }
}

function entry(p: Profile, inv: ModelInventory, deps: DiscoveryDeps) {
  const avail = availability(p, inv);
  let evidence: ReturnType<typeof profileEvidence> | null = null;
  const reasons = [...avail.reasons];
  try {
    evidence = profileEvidence(p, deps.providerId, (stem) => deps.catalog.readPrompt(stem));
  } catch {
    // A prompt file removed after start-up: the profile cannot run, and incomplete evidence is never sent.
    reasons.push('prompt_unavailable');
  }
  return {
    id: p.id,
    label: p.label,
    available: avail.available && evidence !== null,
    required_models: requiredModels(p),
    role_models: roleModels(p),
    role_knobs: roleKnobs(p),
    policies: queryPolicies(p),
    ...(evidence ? { profileEvidence: evidence } : {}),
    unavailable_reasons: reasons,
  };
}

export function discoveryDocument(profiles: readonly Profile[], inv: ModelInventory, deps: DiscoveryDeps) {
  return { object: 'list', data: profiles.map((p) => entry(p, inv, deps)), backend: backendInventory(inv) };
}

export function discoveryHandler(deps: DiscoveryDeps) {
  return async (_req: Request, res: Response): Promise<void> => {
    const inv = await inventoryWithin(deps.router, deps.discoveryTimeoutMs);
    res.json(discoveryDocument(queryProfiles(deps.catalog), inv, deps));
  };
}
