import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expectedModelFile, missingModelAdvice, noModelAdvice, readModelCatalog } from '../../../../server/llm/embedded/manifest';

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-manifest-'));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

const dirs: string[] = [];
const make = (files: Record<string, string>) => {
  const d = folder(files);
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('readModelCatalog', () => {
  test('files named <model id>.gguf, in name order, with the defaults', () => {
    const dir = make({ 'qwen2.5-14b.gguf': 'x', 'gemma-4-12b.GGUF': 'x', 'notes.txt': 'x', 'README.md': 'x' });
    const catalog = readModelCatalog(dir, { threads: 3 });
    expect(catalog.problems).toEqual([]);
    expect(catalog.specs).toEqual([
      { id: 'gemma-4-12b', file: path.join(dir, 'gemma-4-12b.GGUF'), contextSize: null, threads: 3, gpuLayers: 0, swaFull: true, problem: null },
      { id: 'qwen2.5-14b', file: path.join(dir, 'qwen2.5-14b.gguf'), contextSize: null, threads: 3, gpuLayers: 0, swaFull: true, problem: null },
    ]);
  });

  test('the manifest maps ids to files with their settings; other files still count', () => {
    const dir = make({
      'models.yaml': 'models:\n  gemma-4-12b:\n    file: g.gguf\n    context_size: 8192\n    threads: 2\n    swa_full: false\n  missing-model:\n    file: nope.gguf\n',
      'g.gguf': 'x',
      'gemma-4-12b.gguf': 'x',
      'extra.gguf': 'x',
    });
    const { specs, problems } = readModelCatalog(dir, { threads: 1 });
    expect(problems).toEqual([]);
    expect(specs.map((s) => [s.id, path.basename(s.file), s.contextSize, s.threads, s.swaFull])).toEqual([
      ['gemma-4-12b', 'g.gguf', 8192, 2, false],
      ['missing-model', 'nope.gguf', null, 1, true],
      ['extra', 'extra.gguf', null, 1, true],
    ]);
    expect(specs[1].problem).toBe(`the GGUF file ${path.join(dir, 'nope.gguf')} named for 'missing-model' in models.yaml does not exist`);
  });

  test.each<[string, string, string]>([
    ['not YAML', 'models: [unclosed', 'is not valid YAML'],
    ['an unknown field', 'models:\n  m:\n    file: a.gguf\n    gpu: 1\n', 'does not match the manifest format'],
    ['a context below 256', 'models:\n  m:\n    file: a.gguf\n    context_size: 64\n', 'context_size must be >= 256'],
    ['no file', 'models:\n  m:\n    threads: 2\n', "must have required property 'file'"],
    ['a bad model id', 'models:\n  "bad id!":\n    file: a.gguf\n', 'does not match the manifest format'],
  ])('a malformed manifest (%s) is reported, its models ignored, never a crash', (_name, yaml, says) => {
    const dir = make({ 'models.yaml': yaml, 'other.gguf': 'x' });
    const catalog = readModelCatalog(dir, { threads: 1 });
    expect(catalog.problems).toHaveLength(1);
    expect(catalog.problems[0]).toContain(says);
    expect(catalog.specs.map((s) => s.id)).toEqual(['other']);
  });

  test('a missing folder is a problem, not an error', () => {
    const dir = path.join(os.tmpdir(), `mah-missing-${process.pid}`);
    expect(readModelCatalog(dir, { threads: 1 })).toEqual({ dir, specs: [], problems: [`MODELS_DIR ${dir} does not exist`] });
  });

  test('the advice names the folder, the file name and the manifest', () => {
    expect(noModelAdvice('/srv/models')).toBe(
      'Put a GGUF model in /srv/models named <model id>.gguf (the model id a profile uses, e.g. gemma-4-12b.gguf), or map model ids to files in /srv/models/models.yaml; or set LLM_BASE_URL to use a llama.cpp router.',
    );
  });

  test.each([
    ['gemma-4-12b', '/srv/models/gemma-4-12b.gguf', "Put its GGUF file at /srv/models/gemma-4-12b.gguf, or map 'gemma-4-12b' to a file in /srv/models/models.yaml; or set LLM_BASE_URL to use a llama.cpp router."],
    ['qwen3.5:9b', '/srv/models/qwen3.5:9b.gguf', "Put its GGUF file at /srv/models/qwen3.5:9b.gguf, or map 'qwen3.5:9b' to a file in /srv/models/models.yaml; or set LLM_BASE_URL to use a llama.cpp router."],
    // An id that cannot be a file name in the folder is served only through the manifest.
    ['org/model', null, "Map 'org/model' to a GGUF file in /srv/models/models.yaml; or set LLM_BASE_URL to use a llama.cpp router."],
  ])('a missing model %s is looked for at %s', (id, file, advice) => {
    expect(expectedModelFile('/srv/models', id)).toBe(file);
    expect(missingModelAdvice('/srv/models', id)).toBe(advice);
  });
});
