/** `GET /v1/models`: the profile catalogue with live router availability (§2.2). Legs are never listed. */
import type { Request, Response } from 'express';
import { availability, backendInventory, type Availability, type ModelInventory, type RouterClient } from '../llm';
import { requiredModels, type Profile } from '../profiles';

/** Effective default: the yaml default when available, else the available product profile with the lowest (priority, id). */
export function effectiveDefault(profiles: readonly Profile[], avail: ReadonlyMap<string, Availability>): string | null {
  const candidates = profiles.filter((p) => p.visibility === 'product' && avail.get(p.id)?.available);
  const preferred = candidates.find((p) => p.isDefault);
  if (preferred) return preferred.id;
  const sorted = [...candidates].sort((a, b) => a.selectionPriority - b.selectionPriority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sorted[0]?.id ?? null;
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
