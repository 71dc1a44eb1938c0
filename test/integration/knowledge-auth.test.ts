/** lsk_ client keys (knowledge-layer.md §6.3): every Locus code, daily quota by UTC day, no key in logs. */
import { KEYS, post, sha256, startTestKnowledge, type TestKnowledge } from '../support/knowledge-service';

let k: TestKnowledge;
beforeAll(async () => {
  k = await startTestKnowledge({}, { quota: 3 });
});
afterAll(async () => {
  await k.close();
});

const body = { query: 'Quel antibiotique pour une angine ?', patient_ehr: { allergies: ['Pénicilline'] } };

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const b = (await res.json()) as any;
  expect(b.error).toEqual({ message: expect.any(String), type: expect.any(String), param: null, code });
  expect(b.detail).toMatchObject({ code, message: b.error.message });
}

describe('lsk auth', () => {
  test('AUTH_MISSING: no Authorization header (401, WWW-Authenticate)', async () => {
    const res = await fetch(`${k.url}/v2/context`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    await expectError(res, 401, 'AUTH_MISSING');
    await expectError(await post(`${k.url}/v2/context`, body, { authorization: 'Bearer ' }), 401, 'AUTH_MISSING');
  });

  test.each(['Bearer sk-not-a-locus-key', `Bearer ${KEYS.almapro.toUpperCase()}`, 'Bearer lsk_alma_pro_0123456789abcdef0123456789abcdef', `Bearer ${KEYS.almapro}0`, 'Basic dXNlcjpwYXNz'])('AUTH_INVALID_FORMAT: %s', async (header) => {
    await expectError(await post(`${k.url}/v2/context`, body, { authorization: header }), 401, 'AUTH_INVALID_FORMAT');
  });

  test('AUTH_INVALID_KEY: a well-formed unknown key, or a known digest under another slug', async () => {
    await expectError(await post(`${k.url}/v2/context`, body, { authorization: 'Bearer lsk_almapro_ffffffffffffffffffffffffffffffff' }), 401, 'AUTH_INVALID_KEY');
    // Same 32 hex as almapro's key under another slug: a different key, so a different digest.
    await expectError(await post(`${k.url}/v2/context`, body, { authorization: `Bearer ${KEYS.almapro.replace('almapro', 'other')}` }), 401, 'AUTH_INVALID_KEY');
  });

  test('AUTH_CLIENT_INACTIVE: a known key of an inactive client (403)', async () => {
    await expectError(await post(`${k.url}/v1/answer`, { query: 'angine' }, { authorization: `Bearer ${KEYS.dormant}` }), 403, 'AUTH_CLIENT_INACTIVE');
  });

  test('RATE_LIMIT after the daily quota; the quota resets the next UTC day', async () => {
    const as = { authorization: `Bearer ${KEYS.almapro}` };
    k.clock.now = new Date('2026-12-01T23:59:00Z');
    for (let i = 0; i < 3; i++) expect((await post(`${k.url}/v2/context`, body, as)).status).toBe(200);
    const limited = await post(`${k.url}/v2/retrieve`, { query: 'angine' }, as);
    expect(limited.headers.get('retry-after')).toBe('60');
    await expectError(limited, 429, 'RATE_LIMIT');
    // Another client is not affected by almapro's quota.
    expect((await post(`${k.url}/v2/context`, body)).status).toBe(200);
    k.clock.now = new Date('2026-12-02T00:00:01Z');
    expect((await post(`${k.url}/v2/context`, body, as)).status).toBe(200);
  });

  test('a bare lsk_ value (no Bearer prefix) is accepted like the Locus playground sends it', async () => {
    expect((await post(`${k.url}/v1/answer`, { query: 'angine' }, { authorization: KEYS.open })).status).toBe(200);
  });

  test('logs carry neither keys, digests, query text nor patient facts', async () => {
    await post(`${k.url}/v2/context`, body, { authorization: `Bearer ${KEYS.almapro}` });
    const all = k.logs.join('\n');
    expect(all).toContain('knowledge request');
    for (const secret of [...Object.values(KEYS), ...Object.values(KEYS).map(sha256), 'antibiotique', 'Pénicilline', 'nicilline']) expect(all).not.toContain(secret);
  });
});
