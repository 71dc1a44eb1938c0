/** DRUG_SAFETY_* settings (hub-contract §9.1): defaults, `none` sentinels and the contract's lenient fallbacks. */
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../../server/config';

const ROOT = path.resolve(__dirname, '../../../..');
const load = (env: Record<string, string>) => loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:1', ...env }, ROOT).drugSafety;

describe('drug-safety settings', () => {
  test('defaults: the bundled package and groups, CIEL weight, 90 days, minor', () => {
    expect(load({})).toEqual({
      format: 'json',
      datasetPath: path.join(ROOT, 'data/drug-safety/drug-reference.json'),
      crossReactivityPath: path.join(ROOT, 'data/drug-safety/cross-reactivity-groups.json'),
      weightConceptUuid: '5089AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      weightMaxAgeDays: 90,
      minInteractionSeverity: 'minor',
    });
  });

  test('`none` disables the groups and the weight arm only', () => {
    expect(load({ DRUG_SAFETY_CROSS_REACTIVITY_PATH: 'none', DRUG_SAFETY_WEIGHT_CONCEPT_UUID: 'NONE' })).toMatchObject({ crossReactivityPath: null, weightConceptUuid: null, format: 'json' });
  });

  test.each([
    ['30', 30],
    ['0', 90],
    ['-5', 90],
    ['7.5', 90],
    ['soon', 90],
  ])('DRUG_SAFETY_WEIGHT_MAX_AGE_DAYS=%s ⇒ %i', (v, days) => {
    expect(load({ DRUG_SAFETY_WEIGHT_MAX_AGE_DAYS: v }).weightMaxAgeDays).toBe(days);
  });

  test.each([
    ['Moderate', 'moderate'],
    ['major', 'major'],
    ['minor', 'minor'],
    ['severe', 'minor'],
  ])('DRUG_SAFETY_MIN_INTERACTION_SEVERITY=%s ⇒ %s', (v, floor) => {
    expect(load({ DRUG_SAFETY_MIN_INTERACTION_SEVERITY: v }).minInteractionSeverity).toBe(floor);
  });

  test('the source format is json or atc; anything else stops start-up naming the variable', () => {
    expect(load({ DRUG_SAFETY_SOURCE_FORMAT: 'ATC' }).format).toBe('atc');
    expect(() => load({ DRUG_SAFETY_SOURCE_FORMAT: 'xml' })).toThrow(ConfigError);
    expect(() => load({ DRUG_SAFETY_SOURCE_FORMAT: 'xml' })).toThrow(/DRUG_SAFETY_SOURCE_FORMAT/);
  });

  test('a relative dataset path resolves against the root', () => {
    expect(load({ DRUG_SAFETY_DATASET_PATH: 'x/pkg.json' }).datasetPath).toBe(path.join(ROOT, 'x/pkg.json'));
  });
});
