/**
 * undici's connection pool, loaded on its own. `require('undici')` loads the whole package (fetch,
 * WebSocket, caches, mocks: about 9 MB of resident memory here) when the router client needs only the
 * Pool and its request API. These are undici's own modules, pinned by the lock file, put together as
 * undici's index does; a unit test checks that they are still the classes and functions the package
 * exports, so an upgrade that moves them fails the suite instead of the hub.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Pool as PoolType } from 'undici';

export const UNDICI_POOL_MODULE = 'undici/lib/dispatcher/pool.js';
export const UNDICI_DISPATCHER_MODULE = 'undici/lib/dispatcher/dispatcher.js';
export const UNDICI_API_MODULE = 'undici/lib/api/index.js';

const Dispatcher = require(UNDICI_DISPATCHER_MODULE) as { prototype: Record<string, unknown> };
// What undici's index does on load (`Object.assign(Dispatcher.prototype, api)`): pool.request() and friends.
if (typeof Dispatcher.prototype.request !== 'function') Object.assign(Dispatcher.prototype, require(UNDICI_API_MODULE));

export const Pool = require(UNDICI_POOL_MODULE) as typeof PoolType;
export type Pool = PoolType;

/**
 * Closes a pool gracefully; after `graceMs`, requests still in flight are cut (a shutdown must not wait out
 * a slow backend or a long stream).
 */
export async function closePool(pool: PoolType, graceMs: number): Promise<void> {
  const cancel = new AbortController();
  const grace = delay(graceMs, undefined, { ref: false, signal: cancel.signal }).then(
    () => pool.destroy(),
    () => undefined,
  );
  try {
    await Promise.race([pool.close(), grace]);
  } finally {
    cancel.abort();
  }
}
