import { HubError } from '../../../server/errors';
import { RouterAdmission } from '../../../server/llm/router-admission';
import { SlotSemaphore, type Release } from '../../../server/llm/slots';

/** Lets queued promise callbacks run. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * A scenario is a list of steps, each followed by the requests that then hold admission:
 * `call M id` (a model call for model M), `aside M id` (a token count naming M), `leave id` (its answer came).
 */
type Step = [string, string[]];

async function play(capacity: number, steps: Step[]): Promise<void> {
  const admission = new RouterAdmission(new SlotSemaphore(capacity, 16));
  const holding = new Map<string, Release>();
  for (const [step, expected] of steps) {
    const [verb, a, b] = step.split(' ');
    if (verb === 'leave') {
      const release = holding.get(a);
      if (!release) throw new Error(`${a} does not hold admission at "${step}"`);
      holding.delete(a);
      release();
    } else {
      const pending = verb === 'call' ? admission.call(a) : admission.aside(a);
      void pending.then((release) => holding.set(b, release));
    }
    await tick();
    expect({ step, holding: [...holding.keys()].sort() }).toEqual({ step, holding: [...expected].sort() });
  }
}

describe('RouterAdmission: what a one-slot router sees at once', () => {
  const one: Array<[string, Step[]]> = [
    ['a count for the model a call is running rides its slot, without waiting', [
      ['call A c1', ['c1']],
      ['aside A a1', ['c1', 'a1']],
      ['leave a1', ['c1']],
      ['leave c1', []],
    ]],
    ['a count for another model waits until the running call is over (it could load that model)', [
      ['call A c1', ['c1']],
      ['aside B b1', ['c1']],
      ['leave c1', ['b1']],
      ['leave b1', []],
    ]],
    ['the slot is freed only when the last request on it has its answer', [
      ['call A c1', ['c1']],
      ['aside A a1', ['c1', 'a1']],
      ['call B c2', ['c1', 'a1']],
      ['leave c1', ['a1']],
      ['leave a1', ['c2']],
    ]],
    ['once its call is over, a slot takes no new riders (a waiting call is not starved)', [
      ['call A c1', ['c1']],
      ['aside A a1', ['c1', 'a1']],
      ['call B c2', ['c1', 'a1']],
      ['leave c1', ['a1']],
      ['aside A a2', ['a1']],
      ['leave a1', ['c2']],
      ['leave c2', ['a2']],
    ]],
    ['a call for the model counts hold adopts their slot when nobody waits', [
      ['aside A a1', ['a1']],
      ['call A c1', ['a1', 'c1']],
      ['leave a1', ['c1']],
      ['aside A a2', ['c1', 'a2']],
      ['leave c1', ['a2']],
      ['leave a2', []],
    ]],
    ['a call never adopts a slot ahead of a waiter (FIFO), nor one another call runs on', [
      ['aside A a1', ['a1']],
      ['call B c1', ['a1']],
      ['call A c2', ['a1']],
      ['leave a1', ['c1']],
      ['leave c1', ['c2']],
      ['call A c3', ['c2']],
      ['leave c2', ['c3']],
    ]],
    ['counts for one model ride each other; a count for another model waits its turn', [
      ['aside A a1', ['a1']],
      ['aside A a2', ['a1', 'a2']],
      ['aside B b1', ['a1', 'a2']],
      ['leave a1', ['a2']],
      ['leave a2', ['b1']],
    ]],
  ];
  test.each(one)('capacity 1: %s', (_name, steps) => play(1, steps));

  const two: Array<[string, Step[]]> = [
    ['two slots: two models at once, a third waits', [
      ['call A c1', ['c1']],
      ['call B c2', ['c1', 'c2']],
      ['aside B b1', ['c1', 'c2', 'b1']],
      ['aside C x1', ['c1', 'c2', 'b1']],
      ['leave c1', ['c2', 'b1', 'x1']],
    ]],
    ['two slots: a second call for the same model takes the second slot', [
      ['call A c1', ['c1']],
      ['call A c2', ['c1', 'c2']],
      ['call A c3', ['c1', 'c2']],
      ['leave c2', ['c1', 'c3']],
    ]],
  ];
  test.each(two)('capacity 2: %s', (_name, steps) => play(2, steps));

  it('a waiting count whose signal aborts leaves the queue; an aborted one is refused at once', async () => {
    const admission = new RouterAdmission(new SlotSemaphore(1, 4));
    const release = await admission.call('A');
    const ac = new AbortController();
    const waiting = admission.aside('B', ac.signal).catch((e: unknown) => e);
    ac.abort();
    expect(await waiting).toMatchObject({ name: 'AbortError' });
    await expect(admission.aside('A', ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    await expect(admission.call('A', ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    release();
    const next = await admission.call('B');
    next();
  });

  it('a count that must wait for a full queue is router_busy, like a model call', async () => {
    const admission = new RouterAdmission(new SlotSemaphore(1, 1));
    await admission.call('A');
    void admission.call('B');
    const err = await admission.aside('C').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubError);
    expect(err).toMatchObject({ code: 'router_busy', status: 503 });
  });

  it('releasing twice leaves the slot once', async () => {
    const sem = new SlotSemaphore(1, 4);
    const admission = new RouterAdmission(sem);
    const release = await admission.call('A');
    const rider = await admission.aside('A');
    release();
    release();
    expect(sem.state().inFlight).toBe(1);
    rider();
    expect(sem.state().inFlight).toBe(0);
  });
});
