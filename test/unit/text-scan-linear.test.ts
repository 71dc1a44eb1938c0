/**
 * Trailing runs are cut by a scan from the end (server/text-scan.ts), not by `/[…]+$/` regexes, which
 * retry a run from each of its positions when it is not at the end (quadratic). The same results as
 * `s.replace(/[chars]+$/, '')`, checked on 50,000-character runs; and the URL settings built on it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../server/config';
import { createRouterClient } from '../../server/llm/router-client';
import { trailingRunStart, trimEndChars } from '../../server/text-scan';
import { RUN_LENGTH } from '../support/blank-runs';

const run = (chars: string) => chars.repeat(RUN_LENGTH / chars.length);

describe('trimEndChars / trailingRunStart on 50,000-character runs', () => {
  test.each<[string, string, string, string]>([
    ['slashes at the end', `http://h/v1${run('/')}`, '/', 'http://h/v1'],
    ['slashes before a last character (rejecting suffix)', `http://h${run('/')}x`, '/', `http://h${run('/')}x`],
    ['only slashes', run('/'), '/', ''],
    ['mixed punctuation at the end', `Done${run('.!?')}`, '.!?', 'Done'],
    ['spaces and punctuation at the end', `Note${run(' .;')}`, ' .;:!?', 'Note'],
    ['punctuation before a last word', `a${run('.;')}b`, ' .;:!?', `a${run('.;')}b`],
    ['characters outside the set stop the scan', `a${run('/')}. `, '/', `a${run('/')}. `],
    ['empty text', '', '/', ''],
    ['empty set', 'abc//', '', 'abc//'],
  ])('%s', (_case, s, chars, expected) => {
    expect(trimEndChars(s, chars)).toBe(expected);
    expect(trailingRunStart(s, chars)).toBe(expected.length);
  });
});

describe('URL settings with 50,000 trailing slashes', () => {
  test('LLM_BASE_URL loses them', () => {
    expect(loadConfig({ LLM_BASE_URL: `http://router:8077/base${run('/')}` }).llmBaseUrl).toBe('http://router:8077/base');
  });

  test('the router client posts under the path prefix without them', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ model: 'm1', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix${run('/')}`;
    const client = createRouterClient({ baseUrl: base, apiKey: '', maxConcurrency: 1, maxQueue: 1, connectTimeoutMs: 1000, idleTimeoutMs: 2000, discoveryTimeoutMs: 500 });
    try {
      const out = await client.chat({ model: 'm1', messages: [{ role: 'user', content: 'hi' }], temperature: 0 }, { slots: { acquisitions: 0, releases: 0, active: 0 } });
      expect(out.content).toBe('ok');
      expect(seen).toEqual(['/prefix/v1/chat/completions']);
    } finally {
      await client.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
