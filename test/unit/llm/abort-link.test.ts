/** linkedAbort (server/llm/abort-link.ts): a controller that follows its parent, as AbortSignal.any would. */
import { linkedAbort } from '../../../server/llm/abort-link';

test('without a parent it aborts only by its own abort()', () => {
  const l = linkedAbort();
  expect(l.signal.aborted).toBe(false);
  l.abort();
  expect(l.signal.aborted).toBe(true);
});

test("it follows its parent's abort, with the parent's reason, once", () => {
  const parent = new AbortController();
  const l = linkedAbort(parent.signal);
  let fired = 0;
  l.signal.addEventListener('abort', () => fired++);
  parent.abort(new Error('client gone'));
  expect(l.signal.aborted).toBe(true);
  expect((l.signal.reason as Error).message).toBe('client gone');
  l.abort();
  expect(fired).toBe(1);
});

test('an already aborted parent aborts it at once', () => {
  const parent = new AbortController();
  parent.abort('early');
  expect(linkedAbort(parent.signal).signal.reason).toBe('early');
});

test('its own abort never aborts the parent, and after unlink the parent no longer reaches it', () => {
  const parent = new AbortController();
  const a = linkedAbort(parent.signal);
  a.abort();
  expect(parent.signal.aborted).toBe(false);
  const b = linkedAbort(parent.signal);
  b.unlink();
  parent.abort();
  expect(b.signal.aborted).toBe(false);
});
