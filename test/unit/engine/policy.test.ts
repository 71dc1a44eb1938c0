import path from 'node:path';
import { temporalPolicy } from '../../../server/engine/policy';
import { loadCatalog } from '../../../server/profiles/catalog';

const ROOT = path.resolve(__dirname, '../../..');
const catalog = loadCatalog({ profilesPath: path.join(ROOT, 'profiles/levels.yaml'), promptsDir: path.join(ROOT, 'prompts') });

describe('temporalPolicy (§4.7)', () => {
  test.each<[string, Record<string, unknown> | null, { enabled: boolean; mode: string }]>([
    ['single-12b-bare', null, { enabled: true, mode: 'enforce' }],
    ['single-12b-bare', { temporal: false }, { enabled: true, mode: 'enforce' }],
    ['single-12b-bare', { temporal_gate: 'off' }, { enabled: true, mode: 'enforce' }],
    ['single-12b-fast', { temporal_gate: 'warn' }, { enabled: true, mode: 'enforce' }],
    ['answer:gemma-4-12b~enforce', null, { enabled: true, mode: 'enforce' }],
    ['answer:gemma-4-12b~enforce', { temporal_gate: 'warn' }, { enabled: true, mode: 'warn' }],
    // A leg whose gate is off sends no facts unless the request asks for them.
    ['answer:gemma-4-12b~enforce', { temporal_gate: 'off' }, { enabled: false, mode: 'off' }],
    ['answer:gemma-4-12b~off', null, { enabled: false, mode: 'off' }],
    ['answer:gemma-4-12b~off', { temporal: true }, { enabled: true, mode: 'off' }],
    ['answer:gemma-4-12b~off', { temporal: true, temporal_gate: 'warn' }, { enabled: true, mode: 'warn' }],
    ['answer:gemma-4-12b~off', { temporal_gate: 'warn' }, { enabled: true, mode: 'warn' }],
    ['answer:gemma-4-12b~enforce', { temporal_gate: 'maybe' }, { enabled: true, mode: 'enforce' }],
    ['answer:gemma-4-12b~enforce', { temporal: false }, { enabled: false, mode: 'off' }],
    ['answer:gemma-4-12b', null, { enabled: false, mode: 'off' }],
    // Evaluation profiles keep their facts whatever their gate (the harness compares gate on and off over the same prompt).
    ['eval-12b-answer-only', null, { enabled: true, mode: 'off' }],
    ['answer:gemma-4-12b', { temporal_gate: 'enforce' }, { enabled: true, mode: 'enforce' }],
    ['eval-12b-temporal-enforce', { temporal_gate: 'off' }, { enabled: true, mode: 'off' }],
  ])('%s with context %j', (model, context, want) => {
    expect(temporalPolicy(catalog.resolve(model), context)).toEqual(want);
  });
});
