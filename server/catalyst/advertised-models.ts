/**
 * Is a model id advertised by the backend right now? A raw generate must never forward an unknown id,
 * yet a catalogue round trip per call would add milliseconds to every time to first token. So a positive
 * answer is remembered briefly: an id the backend listed within the last POSITIVE_TTL_MS is forwarded
 * without asking again, while an id not (or no longer) in the remembered list is always checked live.
 * Past half its TTL a listing that answers is refreshed in the background (one refresh at a time), so
 * steady traffic never waits for the catalogue while no answer comes from a listing older than the TTL.
 */
import type { ModelInventory, RouterClient } from '../llm';
import { inventoryWithin } from './discovery';

export const POSITIVE_TTL_MS = 2000;

export interface AdvertisedModels {
  /** The live inventory when it had to be read (`null` when a fresh remembered listing answered). */
  check(model: string, signal: AbortSignal): Promise<{ advertised: boolean; inventory: ModelInventory | null }>;
}

export function advertisedModels(router: RouterClient, timeoutMs: number, now: () => number = () => performance.now()): AdvertisedModels {
  let known: { ids: Set<string>; at: number } | null = null;
  let refreshing = false;
  const remember = (inventory: ModelInventory, at: number) => {
    known = inventory.reachable ? { ids: new Set(inventory.ids), at } : null;
  };
  const refreshAhead = () => {
    if (refreshing) return;
    refreshing = true;
    // After the calling request has gone out, not before it; not on its signal: the refresh serves later
    // calls, bounded by the discovery timeout alone.
    setImmediate(() => {
      const at = now();
      void inventoryWithin(router, timeoutMs).then((inventory) => {
        refreshing = false;
        remember(inventory, at);
      });
    });
  };
  return {
    async check(model, signal) {
      const age = known ? now() - known.at : Infinity;
      if (known && age < POSITIVE_TTL_MS && known.ids.has(model)) {
        if (age >= POSITIVE_TTL_MS / 2) refreshAhead();
        return { advertised: true, inventory: null };
      }
      const at = now();
      const inventory = await inventoryWithin(router, timeoutMs, signal);
      remember(inventory, at);
      return { advertised: inventory.reachable && inventory.ids.includes(model), inventory };
    },
  };
}
