/**
 * The hub's import rule (docs/architecture.md): floors from top to bottom; a file in server/ imports
 * only its own floor or lower ones, never a higher one, and no import circle exists. `npm test` runs this.
 */
const FLOORS = [
  { name: 'wiring', path: '^server/(main|app)\\.ts$' },
  { name: 'http', path: '^server/http/' },
  { name: 'endpoint families', path: '^server/(chat|catalyst|knowledge)/' },
  { name: 'engine', path: '^server/engine/' },
  { name: 'context, checks, llm', path: '^server/(context|checks|llm)/' },
  { name: 'profiles, trace, metrics', path: '^server/(profiles/|trace/|metrics\\.ts$)' },
  { name: 'answer model, wire helpers', path: '^server/(answer|wire)/' },
  { name: 'errors, settings, logger, utilities', path: '^server/(errors|config|logger|json-schemas|text-scan|sanitize|regexp|event-loop)(\\.ts$|/)' },
];

const floorRules = FLOORS.slice(1).map((floor, i) => ({
  name: `floor: ${floor.name}`,
  comment: `${floor.name} is below ${FLOORS.slice(0, i + 1).map((f) => f.name).join(', ')}: it must not import them`,
  severity: 'error',
  from: { path: floor.path },
  to: { path: FLOORS.slice(0, i + 1).map((f) => f.path) },
}));

module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: 'no-circular',
      comment: 'an import circle ties modules together so neither can change alone',
      severity: 'error',
      from: { path: '^server/' },
      to: { circular: true },
    },
    {
      name: 'every file has a floor',
      comment: 'a new top-level file or folder in server/ must be placed on a floor in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^server/', pathNot: FLOORS.map((f) => f.path) },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
