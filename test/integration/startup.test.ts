import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/hub';

const levels = (profiles: string) => `profiles:\n${profiles}`;
const profile = (id: string, extra = '') => `  ${id}:
    label: Test ${id}
    topology: single
    stages: [context, answer, gate]
    models: {answer: gemma-4-12b}
    policies: {output: bare, answer_contract: chart_answer, temporal_gate: off}
    visibility: evaluation
${extra}`;

function startWith(yamlText: string, promptsDir = path.join(ROOT, 'prompts')) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-levels-'));
  const file = path.join(dir, 'levels.yaml');
  fs.writeFileSync(file, yamlText);
  // The real process entry point, started the way `npm start` starts it (minus the build step).
  return spawnSync(process.execPath, ['-r', path.join(ROOT, 'scripts/register-ts.js'), path.join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, HUB_PROFILES_PATH: file, HUB_PROMPTS_DIR: promptsDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 15000,
  });
}

describe('start-up refuses a malformed catalogue', () => {
  test.each<[string, string, RegExp[]]>([
    ['unknown stage', levels(profile('p1', '    default: true\n').replace('[context, answer, gate]', '[context, answer, gate, bogus]')), [/p1/, /bogus/]],
    ['missing prompt file', levels(profile('p1', '    default: true\n    prompts: {answer: no-such-prompt}\n')), [/p1/, /no-such-prompt/]],
    ['two defaults', levels(profile('p1', '    default: true\n') + profile('p2', '    default: true\n')), [/default/, /p1/, /p2/]],
  ])('%s', (_name, yamlText, patterns) => {
    const run = startWith(yamlText);
    expect(run.status).not.toBe(0);
    for (const p of patterns) expect(run.stderr).toMatch(p);
  });

  test('a bad setting stops start-up naming the variable', () => {
    const run = spawnSync(process.execPath, ['-r', path.join(ROOT, 'scripts/register-ts.js'), path.join(ROOT, 'server/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 15000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('PORT');
  });

  test('an LLM_BACKENDS entry whose api_key_env names an unset variable stops start-up naming it, and nothing else', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-backends-'));
    const file = path.join(dir, 'backends.yaml');
    fs.writeFileSync(file, 'models:\n  gemma-4-12b: { base_url: "http://127.0.0.1:9", api_key_env: MAH_TEST_GPU_KEY }\n');
    const env: Record<string, string | undefined> = { ...process.env, LLM_BACKENDS: file, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
    delete env.MAH_TEST_GPU_KEY;
    const run = spawnSync(process.execPath, ['-r', path.join(ROOT, 'scripts/register-ts.js'), path.join(ROOT, 'server/main.ts')], { cwd: ROOT, env, encoding: 'utf8', timeout: 15000 });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`med-agent-hub: configuration error: MAH_TEST_GPU_KEY: is not set, and ${file} names it as the api_key_env of model 'gemma-4-12b' (LLM_BACKENDS)\n`);
  });
});
