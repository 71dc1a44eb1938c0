/** loadCatalog: start-up failures name the file, profile and rule; resolve() maps model ids (legs first). */
import fs from 'node:fs';
import path from 'node:path';
import { HubError } from '../../../server/errors';
import { loadCatalog } from '../../../server/profiles/catalog';
import { ProfileConfigError } from '../../../server/profiles/compiler';
import { promptsDir, SHIPPED_LEVELS, SHIPPED_PROMPTS, writeLevels } from './helpers';

const profile = (id: string, extra = '') => `  ${id}:
    label: Test ${id}
    topology: single
    stages: [context, answer, gate]
    models: {answer: gemma-4-12b}
    policies: {output: bare, answer_contract: chart_answer, temporal_gate: 'off'}
    visibility: evaluation
${extra}`;

function loadError(yamlText: string, prompts = SHIPPED_PROMPTS): ProfileConfigError {
  const file = writeLevels(yamlText);
  try {
    loadCatalog({ profilesPath: file, promptsDir: prompts });
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileConfigError);
    expect((err as Error).message.startsWith(file)).toBe(true);
    return err as ProfileConfigError;
  }
  throw new Error('expected loadCatalog to throw');
}

function hubError(fn: () => unknown): HubError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HubError);
    return err as HubError;
  }
  throw new Error('expected a HubError');
}

describe('loadCatalog stops start-up with a clear message', () => {
  test.each<[string, string, string[]]>([
    ['missing prompt file', `profiles:\n${profile('p1', '    default: true\n    prompts: {answer: no-such-prompt}\n')}`, ["profile 'p1': prompt file '", "no-such-prompt.txt' is missing (role answer)"]],
    ['two defaults', `profiles:\n${profile('p1', '    default: true\n')}${profile('p2', '    default: true\n')}`, ['profiles: exactly one profile must have default: true (found 2: p1, p2)']],
    ['unknown stage', `profiles:\n${profile('p1', '    default: true\n').replace('[context, answer, gate]', '[context, answer, gate, bogus]')}`, ["profile 'p1': unknown stage 'bogus'"]],
    ['apply review action', `profiles:\n${profile('p1', '    default: true\n').replace("temporal_gate: 'off'}", "temporal_gate: 'off', review: {action: apply}}")}`, ["profile 'p1': policies.review.action 'apply' is refused"]],
    ['YAML syntax error', 'profiles:\n  p1:\n    label: [unclosed\n    topology: single\n', ['YAML syntax error at line 4']],
    ['duplicate profile id', `profiles:\n${profile('p1', '    default: true\n')}${profile('p1')}`, ['levels.yaml:10:3: YAML syntax error at line 10, column 3: Map keys must be unique']],
    ['unresolved alias', 'profiles: *nope\n', ['YAML error: Unresolved alias']],
    ['empty file', '', ['levels.yaml: the catalogue must be object (found null)']],
    ['alias shadowing a profile', `profiles:\n${profile('p1', '    default: true\n    aliases: [p2]\n')}${profile('p2')}`, ["profile 'p1': alias 'p2' is the id of another profile"]],
  ])('%s', (_name, yamlText, fragments) => {
    const message = loadError(yamlText).message;
    for (const f of fragments) expect(message).toContain(f);
  });

  test('a YAML syntax error names the file and line', () => {
    const err = loadError('profiles:\n  p1:\n    label: "unterminated\n');
    expect(err.message).toMatch(/levels\.yaml:\d+:\d+: YAML syntax error at line \d+, column \d+: /);
  });

  test('an unreadable catalogue is a ProfileConfigError naming the path', () => {
    expect(() => loadCatalog({ profilesPath: '/nonexistent/levels.yaml', promptsDir: SHIPPED_PROMPTS })).toThrow(/cannot read profile catalogue '\/nonexistent\/levels\.yaml'/);
  });

  test('merge keys share blocks between profiles', () => {
    const file = writeLevels(`stage_sets:
  pol: &pol {output: bare, temporal_gate: warn}
profiles:
  a:
    label: A
    topology: single
    stages: [context, answer, gate]
    models: {answer: m}
    policies: {<<: *pol, drug_safety: true}
    default: true
`);
    const c = loadCatalog({ profilesPath: file, promptsDir: SHIPPED_PROMPTS });
    expect(c.get('a')?.policies).toMatchObject({ output: 'bare', temporalGate: 'warn', drugSafety: true });
  });
});

describe('Catalog.resolve', () => {
  const catalog = loadCatalog({ profilesPath: SHIPPED_LEVELS, promptsDir: SHIPPED_PROMPTS });
  const ids = catalog.profiles.map((p) => p.id);

  test('yaml ids resolve to the compiled profile', () => {
    expect(catalog.resolve('single-12b-bare')).toBe(catalog.get('single-12b-bare'));
    expect(catalog.get('nope')).toBeUndefined();
  });

  test('an alias resolves to its canonical profile, never a copy; get() knows canonical ids only', () => {
    expect(catalog.resolve('single-e4b-checked')).toBe(catalog.get('single-12b-checked'));
    expect(catalog.get('single-e4b-checked')).toBeUndefined();
    // A retired [REF] id nobody aliases stays unknown.
    expect(hubError(() => catalog.resolve('med-agent-team')).code).toBe('model_not_found');
  });

  test('legs resolve when their prompt file exists (review family resolves to <stem>-answer)', () => {
    expect(catalog.resolve('answer:gemma-4-12b@synthesis-chartsearchai~off~temp0').lowLevelLeg).toBe(true);
    expect(catalog.resolve('answer-review:qwen2.5-14b').prompts.review).toBe('validation-rewrite');
    expect(catalog.resolve('indepth-only:x@synthesis-indepth~temp0').models.indepth).toBe('x');
  });

  test('an unknown id is a structured model_not_found listing the configured profiles', () => {
    const err = hubError(() => catalog.resolve('nope'));
    expect([err.code, err.status]).toEqual(['model_not_found', 404]);
    expect(err.message).toBe("model 'nope' is not a configured profile or valid low-level leg");
    expect(err.extra).toEqual({ model: 'nope', configured_profiles: ids });
  });

  test('an invalid leg is model_not_found with the same extras', () => {
    const err = hubError(() => catalog.resolve('answer:m~maybe'));
    expect([err.code, err.status]).toEqual(['model_not_found', 404]);
    expect(err.message).toContain("unknown option 'maybe'");
    expect(err.extra).toEqual({ model: 'answer:m~maybe', configured_profiles: ids });
  });

  test('a leg naming a missing prompt is model_not_found naming the prompt (decision 21)', () => {
    const err = hubError(() => catalog.resolve('answer:gemma-4-12b@synthesis-date-output-contract~warn~temp0'));
    expect([err.code, err.status]).toEqual(['model_not_found', 404]);
    expect(err.message).toContain("prompt 'synthesis-date-output-contract' does not exist");
    expect(err.extra).toMatchObject({ model: 'answer:gemma-4-12b@synthesis-date-output-contract~warn~temp0', prompt: 'synthesis-date-output-contract' });
    const family = hubError(() => catalog.resolve('answer-review:m@no-family'));
    expect(family.message).toContain('no-family-answer.txt');
  });
});

describe('Catalog.readPrompt', () => {
  test('serves a prompt from memory and picks up an edit, or a removal, from a background check', async () => {
    const dir = promptsDir();
    const file = path.join(dir, 'synthesis-answer.txt');
    const c = loadCatalog({ profilesPath: writeLevels(`profiles:\n${profile('p1', '    default: true\n')}`), promptsDir: dir, promptRecheckMs: 0 });
    expect(c.promptsDir).toBe(path.resolve(dir));
    expect(c.readPrompt('synthesis-answer')).toBe('prompt synthesis-answer\n');
    fs.writeFileSync(file, 'edited');
    // The call after an edit still serves the known text (no disk access on the request path) and starts a check.
    expect(c.readPrompt('synthesis-answer')).toBe('prompt synthesis-answer\n');
    // Bounded by rounds through the file system's thread pool, not by time: the check was queued before them.
    const seen = async (want: string) => {
      for (let i = 0; i < 200; i++) {
        if (c.readPrompt('synthesis-answer') === want) return true;
        await fs.promises.stat(file);
      }
      return false;
    };
    expect(await seen('edited')).toBe(true);
    fs.rmSync(file);
    const gone = async () => {
      for (let i = 0; i < 200; i++) {
        try {
          c.readPrompt('synthesis-answer');
        } catch (err) {
          return (err as HubError).code;
        }
        await fs.promises.readdir(dir);
      }
      return null;
    };
    expect(await gone()).toBe('prompt_unavailable');
  });

  test('with the default recheck interval, an edit is not read on the next call', () => {
    const dir = promptsDir();
    const c = loadCatalog({ profilesPath: writeLevels(`profiles:\n${profile('p1', '    default: true\n')}`), promptsDir: dir });
    expect(c.readPrompt('synthesis-answer')).toBe('prompt synthesis-answer\n');
    fs.writeFileSync(path.join(dir, 'synthesis-answer.txt'), 'edited');
    expect(c.readPrompt('synthesis-answer')).toBe('prompt synthesis-answer\n');
  });

  test('refuses names outside the prompt directory and reports missing files', () => {
    const c = loadCatalog({ profilesPath: SHIPPED_LEVELS, promptsDir: SHIPPED_PROMPTS });
    expect(hubError(() => c.readPrompt('../package')).code).toBe('prompt_unavailable');
    expect(hubError(() => c.readPrompt('no-such-prompt')).message).toContain("'no-such-prompt.txt' could not be read");
  });
});
