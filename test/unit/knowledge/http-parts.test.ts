/** Knowledge HTTP parts as plain functions: key parsing and key files, the daily quota, escaping, error items, settings. */
import { DailyQuota, KEY_PATTERN, parseKeyFile } from '../../../server/knowledge/http/auth';
import { escapeHtml, markdownToHtml, retrieveMarkdown } from '../../../server/knowledge/http/render';
import { compileKnowledgeSchema, KnowledgeValidationError, validateRequest } from '../../../server/knowledge/http/validate';
import { ConfigError, loadConfig } from '../../../server/config';

describe('lsk_ key format', () => {
  test.each([
    ['lsk_almapro_0123456789abcdef0123456789abcdef', 'almapro'],
    ['lsk_alma-pro-2_0123456789abcdef0123456789abcdef', 'alma-pro-2'],
    ['lsk_alma_pro_0123456789abcdef0123456789abcdef', null],
    ['lsk_almapro_0123456789ABCDEF0123456789abcdef', null],
    ['lsk_almapro_0123456789abcdef0123456789abcde', null],
    ['lsk__0123456789abcdef0123456789abcdef', null],
    ['sk_almapro_0123456789abcdef0123456789abcdef', null],
  ])('%s → slug %s', (key, slug) => {
    expect(KEY_PATTERN.exec(key)?.[1] ?? null).toBe(slug);
  });
});

describe('key file', () => {
  const h = 'a'.repeat(64);
  test('clients with defaults', () => {
    expect(parseKeyFile(JSON.stringify({ clients: [{ slug: 'x', key_sha256: h }, { slug: 'y', key_sha256: h, active: false, daily_quota: 5 }] }))).toEqual([
      { slug: 'x', keySha256: h, active: true, dailyQuota: null },
      { slug: 'y', keySha256: h, active: false, dailyQuota: 5 },
    ]);
  });

  test('a plaintext key where a digest belongs is refused without echoing it', () => {
    const key = 'lsk_x_0123456789abcdef0123456789abcdef';
    let message = '';
    try {
      parseKeyFile(JSON.stringify({ clients: [{ slug: 'x', key_sha256: key }] }), 'keys.json');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^keys\.json: \/clients\/0\/key_sha256/);
    expect(message).not.toContain(key);
    expect(() => parseKeyFile('{', 'keys.json')).toThrow('keys.json: not valid JSON');
  });
});

describe('DailyQuota', () => {
  test('counts per client, refuses past the quota, resets at 00:00 UTC', () => {
    let now = new Date('2026-12-01T23:59:30Z');
    const q = new DailyQuota(() => now);
    expect([q.take(0, 2).ok, q.take(0, 2).ok, q.take(0, 2).ok]).toEqual([true, true, false]);
    expect(q.take(0, 2).retryAfterSeconds).toBe(30);
    expect(q.take(1, 2).ok).toBe(true);
    expect(q.take(2, null).ok).toBe(true);
    now = new Date('2026-12-02T00:00:00Z');
    expect(q.take(0, 2).ok).toBe(true);
  });
});

describe('rendering', () => {
  test('escapeHtml escapes every markup character', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  test('the Markdown renderer adds only its own markup', () => {
    const html = markdownToHtml('# T <b>\n\n> q <script>x</script>\n\n- **gras** `code`\n\npara <i>', 'titre <x>');
    expect(html).toContain('<h1>T &lt;b&gt;</h1>');
    expect(html).toContain('<blockquote>q &lt;script&gt;x&lt;/script&gt;</blockquote>');
    expect(html).toContain('<li><strong>gras</strong> <code>code</code></li>');
    expect(html).toContain('<p>para &lt;i&gt;</p>');
    expect(html).toContain('<title>titre &lt;x&gt;</title>');
    expect(html.match(/<[a-z!/][^>]*>/gi)!.every((t) => /^<\/?(!doctype html|html|head|meta|title|body|h1|blockquote|ul|li|strong|code|p|br)\b/i.test(t))).toBe(true);
  });

  test('Markdown: a multi-line verbatim stays inside its quote', () => {
    const md = retrieveMarkdown({ query: 'q', reformulated: 'q', ehr_summary: '', answer: 'A', answer_format: 'markdown', mkus: [{ id: 'm', verbatim: 'l1\n# not a heading', criteria: '', directive: '', population: [], score: 1, via: 'vector' }], chunks: [], cross_refs: [], concepts: [] });
    expect(md).toContain('> l1\n> # not a heading');
  });
});

describe('validation items (decision 18)', () => {
  const v = compileKnowledgeSchema<{ query: string }>('AnswerRequest');
  test.each([
    [[], [{ loc: ['body'], type: 'model_attributes_type' }]],
    [{ query: 3 }, [{ loc: ['body', 'query'], msg: 'Input should be a valid string', type: 'string_type', input: 3 }]],
    [{ query: 'q', source_ids: [1, 'x'] }, [{ loc: ['body', 'source_ids', 1], type: 'int_type' }]],
  ])('%j', (body, items) => {
    let caught: unknown;
    try {
      validateRequest(v, body);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KnowledgeValidationError);
    expect((caught as KnowledgeValidationError).items).toEqual(items.map((i) => expect.objectContaining(i)));
  });
});

describe('knowledge settings', () => {
  const h = 'b'.repeat(64);
  test('the routes are mounted unless KNOWLEDGE_ENABLED=false (decision 30), behind keys unless KNOWLEDGE_AUTH=off', () => {
    expect(loadConfig({}).knowledge).toMatchObject({ enabled: true, auth: 'keys', keyHashes: [] });
    expect(loadConfig({ KNOWLEDGE_API_KEY_HASHES: h }).knowledge).toMatchObject({ enabled: true, keyHashes: [h], store: { engine: 'sqlite' }, allowUnreviewed: false });
    expect(loadConfig({ KNOWLEDGE_ENABLED: 'false', KNOWLEDGE_API_KEY_HASHES: h }).knowledge.enabled).toBe(false);
    expect(loadConfig({ KNOWLEDGE_ENABLED: 'true' }).knowledge.enabled).toBe(true);
    // The former default `auto` still parses, and now mounts them too.
    expect(loadConfig({ KNOWLEDGE_ENABLED: 'auto' }).knowledge.enabled).toBe(true);
    expect(loadConfig({ KNOWLEDGE_AUTH: 'OFF' }).knowledge.auth).toBe('off');
  });

  test('CTX_ALLOW_UNREVIEWED=true or ENV=test allow include_unreviewed', () => {
    expect(loadConfig({ CTX_ALLOW_UNREVIEWED: 'true' }).knowledge.allowUnreviewed).toBe(true);
    expect(loadConfig({ ENV: 'test' }).knowledge.allowUnreviewed).toBe(true);
    expect(loadConfig({ ENV: 'production' }).knowledge.allowUnreviewed).toBe(false);
  });

  test.each([
    [{ KNOWLEDGE_API_KEY_HASHES: 'lsk_x_0123456789abcdef0123456789abcdef' }, 'KNOWLEDGE_API_KEY_HASHES'],
    [{ KNOWLEDGE_ENABLED: 'yes' }, 'KNOWLEDGE_ENABLED'],
    [{ KNOWLEDGE_AUTH: 'none' }, 'KNOWLEDGE_AUTH'],
    [{ KNOWLEDGE_STORE: 'postgres' }, 'KNOWLEDGE_DATABASE_URL'],
    [{ KNOWLEDGE_EMBEDDER: 'openai-compatible' }, 'KNOWLEDGE_EMBEDDER_BASE_URL'],
    [{ CTX_ALLOW_UNREVIEWED: '1' }, 'CTX_ALLOW_UNREVIEWED'],
  ])('%j is a ConfigError naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}:`));
  });
});
