import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { FakeRouter } from '../support/fake-router';
import { ROOT, startTestHub } from '../support/hub';

describe('HUB_API_KEYS', () => {
  test('every route but /health needs a valid Bearer key; 401 without, 403 with a wrong one', async () => {
    const router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    const key = 'clinic-secret-key';
    const hash = execFileSync(process.execPath, [path.join(ROOT, 'scripts/hash-key.js'), key], { encoding: 'utf8' }).trim();
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_API_KEYS: `${'0'.repeat(64)},${hash}` });
    try {
      expect((await fetch(`${hub.url}/health`)).status).toBe(200);
      const missing = await fetch(`${hub.url}/v1/models`);
      expect(missing.status).toBe(401);
      const body = (await missing.json()) as any;
      expect(body.error.code).toBe('authentication_required');
      expect(body.detail.code).toBe('authentication_required');
      const wrong = await fetch(`${hub.url}/v1/models`, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(403);
      expect(((await wrong.json()) as any).detail.code).toBe('invalid_api_key');
      const ok = await fetch(`${hub.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(ok.status).toBe(200);
      const chat = await fetch(`${hub.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
      expect(chat.status).toBe(401);
      expect(router.requests.filter((r) => r.path.includes('chat'))).toHaveLength(0);
      expect((await fetch(`${hub.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${hub.url}/metrics`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    } finally {
      await hub.close();
      await router.stop();
    }
  });
});
