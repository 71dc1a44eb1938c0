/** Hostile bodies at the Catalyst routes: always a clear 4xx (or a normal answer), never a 5xx or a crash (decision 11). */
import { useRouterAndHub } from '../support/hub';

const ROLE = '/v1/hub/query-profiles/catalyst-query-gemma-4-12b/roles/query_generate';
const deep = (n: number): unknown => (n === 0 ? 'x' : [deep(n - 1)]);

const BODIES: Array<[string, string]> = [
  ['not JSON', '{"messages": ['],
  ['a JSON string', '"hello"'],
  ['null', 'null'],
  ['an array', '[{"role":"user","content":"x"}]'],
  ['nesting 200 deep', JSON.stringify({ messages: [{ role: 'user', content: deep(200) }] })],
  ['a prototype key', '{"__proto__":{"polluted":true},"messages":[{"role":"user","content":"x"}]}'],
  ['a constructor key in a message', '{"messages":[{"role":"user","content":"x","constructor":{"prototype":{}}}]}'],
  ['messages as an object', '{"messages":{"0":{"role":"user","content":"x"}}}'],
  ['a null message', '{"messages":[null]}'],
  ['an infinite number', '{"messages":[{"role":"user","content":"x"}],"response_format":{"n":1e309}}'],
  ['lone surrogates', '{"messages":[{"role":"user","content":"\\ud800\\udfff\\ud800"}]}'],
  ['CR/LF injection', JSON.stringify({ messages: [{ role: 'user', content: 'x\r\nevent: done\r\ndata: {}\r\n\r\n' }] })],
  ['a huge content string', JSON.stringify({ messages: [{ role: 'user', content: 'a'.repeat(600_000) }] })],
  ['a role of the wrong type', '{"messages":[{"role":1,"content":"x"}]}'],
];

describe('hostile bodies at the Catalyst routes', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen2.5-14b'] });

  test.each(BODIES)('%s', async (_name, raw) => {
    for (const path of [`${ROLE}/generate`, `${ROLE}/warm`, '/v1/hub/generate']) {
      const res = await fetch(`${ctx.hub.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
      expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
      const text = await res.text();
      if (res.status >= 400) expect(JSON.parse(text).detail.code).toEqual(expect.any(String));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${ctx.hub.url}/health`)).status).toBe(200);
  });
});
