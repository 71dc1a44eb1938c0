import { isSecretKey, reduceUrl, sanitize, sanitizedJson } from '../../server/sanitize';

describe('reduceUrl', () => {
  it('keeps scheme, host, port and path only', () => {
    expect(reduceUrl('https://user:pw@router.example:8443/v1/models?key=abc#frag')).toBe('https://router.example:8443/v1/models');
    expect(reduceUrl('http://localhost:8077')).toBe('http://localhost:8077/');
  });

  it('withholds what it cannot parse', () => {
    expect(reduceUrl('not a url')).toBe('[redacted-invalid-url]');
    expect(reduceUrl('localhost:8077')).toBe('[redacted-invalid-url]');
  });
});

describe('isSecretKey', () => {
  it.each(['password', 'api_key', 'apiKey', 'APIKey', 'x-api-key', 'HUB_API_KEYS', 'access_token', 'refreshToken', 'client_secret', 'Authorization', 'credentials', 'bearer token', 'hf_token', 'token', 'secretName'])(
    '%s is secret',
    (k) => expect(isSecretKey(k)).toBe(true),
  );
  it.each(['max_tokens', 'n_prompt_tokens', 'tokens', 'bos_token', 'model', 'id', 'status', 'keys', 'exact_tokenizer', 'author'])(
    '%s is not secret',
    (k) => expect(isSecretKey(k)).toBe(false),
  );
});

describe('sanitize', () => {
  it('redacts secret keys at any depth, whatever the value', () => {
    const out = sanitize({ a: { apiKey: 'k1', nested: [{ password: { deep: 1 } }] }, clientSecret: 's', keep: 'x' });
    expect(out).toEqual({ a: { apiKey: '[redacted]', nested: [{ password: '[redacted]' }] }, clientSecret: '[redacted]', keep: 'x' });
  });

  it('reduces URL strings and values under url/uri/endpoint keys', () => {
    const out = sanitize({
      base_url: 'http://u:p@h:1/x?q=1',
      redirectUri: 'ftp://me:pw@files.example/dir?x',
      models_endpoint: 'garbage',
      note: 'see https://a:b@docs.example/page?token=1 for details',
      plain: 'https://h/p#f',
    });
    expect(out).toEqual({
      base_url: 'http://h:1/x',
      redirectUri: 'ftp://files.example/dir',
      models_endpoint: '[redacted-invalid-url]',
      note: 'see https://docs.example/page for details',
      plain: 'https://h/p',
    });
  });

  it('redacts the value after a secret CLI flag in router args', () => {
    const entry = { status: { args: ['llama-server', '--api-key', 'sekrit', '--port', '0', '--hf-token=abc', '-hft', 'xyz'] } };
    expect(sanitize(entry)).toEqual({
      status: { args: ['llama-server', '--api-key', '[redacted]', '--port', '0', '--hf-token=[redacted]', '-hft', '[redacted]'] },
    });
  });

  it('redacts secret lines of INI preset text and bearer tokens in text', () => {
    const out = sanitize({ preset: '[m]\napi-key = sekrit\nctx-size = 1024\n', msg: 'sent Authorization: Bearer abc.def' }) as Record<string, string>;
    expect(out.preset).toBe('[m]\napi-key = [redacted]\nctx-size = 1024\n');
    expect(out.msg).not.toContain('abc.def');
  });

  it('does not mutate its input and survives cycles', () => {
    const input: Record<string, unknown> = { token: 't', list: [1, 'two', null, true] };
    input.self = input;
    const out = sanitize(input) as Record<string, unknown>;
    expect(input.token).toBe('t');
    expect(out.token).toBe('[redacted]');
    expect(out.list).toEqual([1, 'two', null, true]);
    expect(out.self).toBe('[circular]');
  });

  it('keeps a __proto__ key from parsed JSON as plain data', () => {
    const out = sanitize(JSON.parse('{"__proto__": {"apiKey": "k", "x": 1}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"apiKey":"[redacted]","x":1}}');
  });

  it('passes primitives through', () => {
    expect(sanitize(3)).toBe(3);
    expect(sanitize(null)).toBeNull();
    expect(sanitize('hello')).toBe('hello');
  });
});

describe('sanitizedJson (the trace writer\'s one-pass form)', () => {
  const cyclic: Record<string, unknown> = { token: 't' };
  cyclic.self = cyclic;
  it.each([
    ['nested secrets', { a: { apiKey: 'k1', nested: [{ password: { deep: 1 } }] }, clientSecret: 's', keep: 'x' }],
    ['URLs', { base_url: 'http://u:p@h:1/x?q=1', redirectUri: 'ftp://me:pw@files.example/dir?x', models_endpoint: 'garbage', note: 'see https://a:b@docs.example/page?token=1 for details', list: ['https://h/p#f'] }],
    ['CLI flags', { status: { args: ['llama-server', '--api-key', 'sekrit', '--port', '0', '--hf-token=abc', '-hft', 'xyz', '-n'] } }],
    ['INI and bearer text', { preset: '[m]\napi-key = sekrit\nctx-size = 1024\n', msg: 'sent Authorization: Bearer abc.def' }],
    ['__proto__ data', JSON.parse('{"__proto__": {"apiKey": "k", "x": 1}}')],
    ['errors, dates, undefined, bigint', { err: new Error('boom http://u:p@h/x'), at: new Date(0), gone: undefined, n: BigInt(7), arr: [undefined, 1] }],
    ['a secret-looking key inside an array item', [{ token: 'x' }, 'token']],
    ['a trace-like line', { request_id: 'r', context: { included: [{ source_id: 'inline:1', reason: 'recent_core' }] }, steps: [{ role: 'answer_synth', model: 'gemma-4-12b', max_tokens: 4 }] }],
    ['primitives', 'hello'],
    ['a cycle (falls back to the copying sanitiser)', cyclic],
  ])('%s: equals JSON.stringify(sanitize(x))', (_name, value) => {
    expect(sanitizedJson(value)).toBe(JSON.stringify(sanitize(value)));
  });
});
