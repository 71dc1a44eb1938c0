import { assertRunnable, unrunnableStages } from '../../../server/engine/run';
import { loadCatalog } from '../../../server/profiles/catalog';
import type { Profile } from '../../../server/profiles/types';
import { SHIPPED_LEVELS, SHIPPED_PROMPTS } from '../profiles/helpers';

describe('runnable plans', () => {
  const catalog = loadCatalog({ profilesPath: SHIPPED_LEVELS, promptsDir: SHIPPED_PROMPTS });

  test.each(catalog.profiles.filter((p) => p.workflow === 'clinical_answer').map((p) => [p.id]))('shipped profile %s runs every stage of its plan', (id) => {
    expect(unrunnableStages(catalog.get(id)!)).toEqual([]);
  });

  test.each([['answer-review:qwen3.5-9b'], ['indepth-only:gemma-4-12b'], ['answer:gemma-4-12b']])('leg %s is runnable', (leg) => {
    expect(() => assertRunnable(catalog.resolve(leg))).not.toThrow();
  });

  test('a team plan (gather before answer) is runnable', () => {
    expect(unrunnableStages(catalog.get('team-12b-checked')!)).toEqual([]);
  });

  test('a plan this build cannot run (output mode combined) is refused with 501 before any model call', () => {
    const base = catalog.get('single-12b-bare')!;
    const combined = { ...base, id: 'combined-x', policies: { ...base.policies, output: 'combined' } } as unknown as Profile;
    expect(unrunnableStages(combined)).toEqual(['output combined']);
    expect(() => assertRunnable(combined)).toThrow(expect.objectContaining({ code: 'stage_not_implemented', status: 501 }));
  });
});

describe('caller-orchestrated profiles', () => {
  const catalog = loadCatalog({ profilesPath: SHIPPED_LEVELS, promptsDir: SHIPPED_PROMPTS });
  test('a Catalyst query profile is refused by chat completions with a clear 400', () => {
    const catalyst = catalog.profiles.find((p) => p.topology === 'caller')!;
    expect(catalyst).toBeDefined();
    expect(() => assertRunnable(catalyst)).toThrow(expect.objectContaining({ code: 'invalid_request_error', status: 400, param: 'model' }));
  });
});
