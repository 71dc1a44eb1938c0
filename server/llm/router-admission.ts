/**
 * Which requests reach the router at once (decision 5). A single-GPU llama.cpp router loads, runs and
 * evicts models per request, so ROUTER_MAX_CONCURRENCY=1 must mean one model busy at a time as the router
 * sees it, not only one chat.
 *
 * A model call (a chat) holds a slot of the semaphore for its whole HTTP request. A request that names a
 * model without running it — `/tokenize`, `/apply-template`, `/v1/chat/completions/input_tokens` — takes
 * no slot of a loaded model (llama-server answers it beside generation), but in router mode one naming a
 * model that is not loaded makes the router load it, evicting another under `--models-max`. Such an
 * *aside* therefore rides a slot already held for its model (that model is loaded or loading: no load of
 * its own, no wait) and otherwise takes a slot like a model call. A slot held by asides alone is adopted
 * by a model call for the same model when no one is waiting, and a slot is freed only when the last
 * request on it has its answer: the router never sees requests for more models than there are slots.
 */
import { abortErrorFrom, type Release, type SlotSemaphore } from './slots';

/** One semaphore slot and the requests on it, all naming the same model. */
interface Lease {
  readonly model: string;
  readonly free: Release;
  /** Requests that took or adopted the slot, still in flight; at 0 nobody new may join. */
  owners: number;
  /** Every request in flight on the slot (owners and riding asides); at 0 the slot is freed. */
  users: number;
  /** A model call runs on the slot (one at a time). */
  calling: boolean;
}

export class RouterAdmission {
  private readonly leases = new Map<string, Lease[]>();

  constructor(private readonly semaphore: SlotSemaphore) {}

  /** A model call: the idle slot asides for `model` hold when nobody waits, else a slot of its own (FIFO). */
  async call(model: string, signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) throw abortErrorFrom(signal);
    const adoptable = this.semaphore.state().queued === 0 ? this.joinable(model, (l) => !l.calling) : undefined;
    const lease = adoptable ?? this.open(model, await this.semaphore.acquire(signal));
    lease.calling = true;
    return this.join(lease, true, () => {
      lease.calling = false;
    });
  }

  /** A request naming `model` that runs no model: rides a slot held for `model`, else takes one (it may load it). */
  async aside(model: string, signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) throw abortErrorFrom(signal);
    const riding = this.joinable(model, () => true);
    if (riding) return this.join(riding, false);
    return this.join(this.open(model, await this.semaphore.acquire(signal)), true);
  }

  private joinable(model: string, ok: (lease: Lease) => boolean): Lease | undefined {
    return this.leases.get(model)?.find((l) => l.owners > 0 && ok(l));
  }

  private open(model: string, free: Release): Lease {
    const lease: Lease = { model, free, owners: 0, users: 0, calling: false };
    const list = this.leases.get(model);
    if (list) list.push(lease);
    else this.leases.set(model, [lease]);
    return lease;
  }

  /** Each release leaves the slot once; the last one out frees it. */
  private join(lease: Lease, owner: boolean, onLeave?: () => void): Release {
    lease.users++;
    if (owner) lease.owners++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      onLeave?.();
      if (owner) lease.owners--;
      if (--lease.users > 0) return;
      const list = this.leases.get(lease.model) ?? [];
      list.splice(list.indexOf(lease), 1);
      if (list.length === 0) this.leases.delete(lease.model);
      lease.free();
    };
  }
}
