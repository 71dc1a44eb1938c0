/** The profile catalogue: levels.yaml and low-level legs compiled at start-up into frozen profiles the engine walks. */
export { loadCatalog, type Catalog } from './catalog';
export { ProfileConfigError } from './compiler';
export { LEVELS_SCHEMA } from './levels-schema';
export { isProductProfile, requiredModels, STAGE_NAMES, type GateMode, type Profile, type Role, type StageName } from './types';
