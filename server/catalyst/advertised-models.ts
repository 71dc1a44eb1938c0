/**
 * Is a model id advertised by the backend right now? A raw generate must never forward an unknown id,
 * yet a catalogue round trip per call would add milliseconds to every time to first token. So a positive
 * answer is remembered briefly: an id the backend listed within the last POSITIVE_TTL_MS is forwarded
 * without asking again, while an id not (or no longer) in the remembered list is always checked live.
 */
import type { ModelInventory, RouterClient } from '../llm/types';
import { inventoryWithin } from './discovery';

export const POSITIVE_TTL_MS = 2000;

export interface AdvertisedModels {
  /** The live inventory when it had to be read (`null` when a fresh remembered listing answered). */
  check(model: string, signal: AbortSignal): Promise<{ advertised: boolean; inventory: ModelInventory | null }>;
}

export function advertisedModels(router: RouterClient, timeoutMs: number, now: () => number = () => performance.now()): AdvertisedModels {
  let known: { ids: Set<string>; at: number } | null = null;
  return {
    async check(model, signal) {
      if (known && now() - known.at < POSITIVE_TTL_MS && known.ids.has(model)) return { advertised: true, inventory: null };
      const inventory = await inventoryWithin(router, timeoutMs, signal);
      known = inventory.reachable ? { ids: new Set(inventory.ids), at: now() } : null;
      return { advertised: inventory.reachable && inventory.ids.includes(model), inventory };
    },
  };
}
