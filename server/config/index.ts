/**
 * The one door of the settings (the lowest floor: it imports nothing of the hub above it). One table of
 * environment variables (variables.ts), one reader per variable (read.ts), typed settings for the hub
 * (`loadConfig`) and for the knowledge layer (`knowledgeSettings`, `knowledgeSourceSettings`).
 */
export { ConfigError, raw, type Env } from './read';
export { SETTINGS, readVariable, DEMO_CONTENT, type AnchorSetting, type SettingDoc, type VariableName } from './variables';
export { loadConfig, loadConfigOrExit, type Config, type DrugSafetyConfig, type EmbeddedConfig, type QuerystoreConfig, type TelemetryConfig } from './hub';
export { backendMapValidator, DEFAULT_BACKEND, EMBEDDED_BACKEND, type BackendMapConfig, type RouterBackendConfig } from './backend-map';
export { knowledgeSettings, type KnowledgeConfig, type KnowledgeEmbedderConfig, type KnowledgeStoreConfig } from './knowledge';
export { knowledgeSourceSettings, needsEmbeddedEngine, type KnowledgeSourceSettings } from './knowledge-source';
