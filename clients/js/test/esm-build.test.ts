/**
 * The package as users get it: built with tsc into dist/ and imported as `@med-agent-hub/client` by a
 * real Node ESM process (not jest's transform). The README's example runs exactly as written against a
 * live hub, and a failure arrives as the exported error class.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, useRouterAndHub } from '../../../test/support/hub';
import { readmeExample, runProcess as run } from '../../../test/support/run-process';

const PACKAGE = path.join(ROOT, 'clients/js');
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [2] to 71 kg on 2026-03-02 [1].';
const CLAIM = 'The most recent weight is 71 kg [1].';

describe('the ESM build in a real Node process', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });
  let app: string;

  beforeAll(async () => {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(PACKAGE, 'tsconfig.json')], (err, stdout) => (err ? reject(new Error(`tsc failed:\n${stdout}`)) : resolve()));
    });
    // An application directory that depends on the package the way npm would link it.
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-client-app-'));
    fs.mkdirSync(path.join(app, 'node_modules/@med-agent-hub'), { recursive: true });
    fs.symlinkSync(PACKAGE, path.join(app, 'node_modules/@med-agent-hub/client'), 'dir');
  }, 120_000);
  afterAll(() => {
    if (app) fs.rmSync(app, { recursive: true, force: true });
  });

  test('the build emits ESM with declarations at the paths package.json exports', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
    expect(pkg.type).toBe('module');
    expect(fs.existsSync(path.join(PACKAGE, pkg.exports['.'].import))).toBe(true);
    expect(fs.existsSync(path.join(PACKAGE, pkg.exports['.'].types))).toBe(true);
    expect(fs.readFileSync(path.join(PACKAGE, 'dist/index.js'), 'utf8')).toMatch(/^export \{/m);
  });

  test("the README's example runs as written and prints the staged answer", async () => {
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: [CLAIM] }) }, { content: JSON.stringify({ answer: ANSWER, citations: [2, 1], blocks: [] }) });
    fs.writeFileSync(path.join(app, 'example.mjs'), readmeExample(path.join(PACKAGE, 'README.md'), 'js'));
    const { code, stdout, stderr } = await run(process.execPath, ['example.mjs'], { cwd: app, env: { HUB_URL: ctx.hub.url } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Answer: ${ANSWER}`);
    expect(stdout).toContain(`In-Depth: complete - ${CLAIM}`);
    expect(ctx.router.chatRequests()).toHaveLength(2);
  });

  test('errors arrive as the exported classes; break closes the connection', async () => {
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: [CLAIM] }), delayMs: 600_000 }, { content: JSON.stringify({ answer: ANSWER, citations: [2, 1], blocks: [] }) });
    const script = `
      import { MedAgentHub, NotFoundError, ENVELOPE_KEY_SHAPES } from '@med-agent-hub/client';
      const hub = new MedAgentHub({ baseURL: process.env.HUB_URL });
      const messages = [{ role: 'user', content: 'Patient records (most recent first):\\n[1] (2026-03-02) Finding — Weight (kg): 71 kg\\n[2] (2026-01-10) Finding — Weight (kg): 74 kg' }, { role: 'user', content: 'Weight?' }];
      try { await hub.ask({ model: 'no-such-profile', messages }); } catch (err) { console.log(err instanceof NotFoundError, err.kind, err.status, err.code); }
      const stream = await hub.stream({ model: 'single-12b-bare', messages });
      for await (const event of stream) { console.log(event.name); break; }
      console.log(ENVELOPE_KEY_SHAPES.ProductEnvelope.keys.includes('inDepth'));
    `;
    fs.writeFileSync(path.join(app, 'errors.mjs'), script);
    const { code, stdout, stderr } = await run(process.execPath, ['errors.mjs'], { cwd: app, env: { HUB_URL: ctx.hub.url } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual(['true NotFoundError 404 model_not_found', 'answer_done', 'true']);
    // The child has exited; the held In-Depth call, if the hub had started it, is gone with its connection.
    await ctx.router.waitIdle();
    expect(ctx.router.openChats).toBe(0);
  });
});
