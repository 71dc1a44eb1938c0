/**
 * The hub's import rules (docs/architecture.md), run by `npm test`:
 * - floors from top to bottom: a file in server/ imports only its own floor or lower ones, never a
 *   higher one, and no import circle exists;
 * - doors: each capability folder is entered through its index.ts alone (below).
 */
const FLOORS = [
  { name: 'wiring', path: '^server/(main|app)\\.ts$' },
  { name: 'http', path: '^server/http/' },
  { name: 'endpoint families', path: '^server/(chat|catalyst|knowledge|console)/' },
  { name: 'engine', path: '^server/engine/' },
  { name: 'context, checks, llm', path: '^server/(context|checks|llm)/' },
  { name: 'profiles, trace, metrics, telemetry', path: '^server/(profiles/|trace/|telemetry/|metrics\\.ts$)' },
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

/**
 * Capability folders: code outside one imports only its door (`index.ts`), so what a folder offers is
 * written in one file and its inside can be rearranged without touching callers. Code inside a folder
 * imports its siblings directly, never its own door (the door imports them: that would be a circle).
 * Sub-folders (engine/stages, context/sources/…, knowledge/store, llm/embedded …) are the inside of their
 * capability. `checks/` is not one capability but a group of them, each with its own door.
 * Type-only imports count too: a type is part of what a folder offers.
 */
const DOORS = [
    'answer', 'catalyst', 'chat', 'config', 'console', 'context', 'engine', 'http', 'knowledge', 'llm', 'llm/backend-map', 'profiles', 'telemetry', 'trace', 'wire',
  'checks/contracts', 'checks/drug-safety', 'checks/grounding', 'checks/review', 'checks/temporal',
];

const doorRules = DOORS.flatMap((door) => [
  {
    name: `door: ${door}`,
    comment: `outside server/${door}/ import it through its door server/${door}/index.ts, not a file behind it`,
    severity: 'error',
    from: { path: '^server/', pathNot: `^server/${door}/` },
    to: { path: `^server/${door}/`, pathNot: `^server/${door}/index\\.ts$` },
  },
  {
    name: `own door: ${door}`,
    comment: `inside server/${door}/ import the sibling itself: the door re-exports it, so going through the door is a circle in waiting`,
    severity: 'error',
    from: { path: `^server/${door}/`, pathNot: `^server/${door}/index\\.ts$` },
    to: { path: `^server/${door}/index\\.ts$` },
  },
]);

module.exports = {
  forbidden: [
    ...floorRules,
    ...doorRules,
    {
      name: 'every folder has a door',
      comment: 'a new folder in server/ (or a file loose in server/checks/) must be a capability listed in DOORS, with its index.ts',
      severity: 'error',
      from: { path: '^server/[^/]+/', pathNot: DOORS.map((door) => `^server/${door}/`) },
      to: {},
    },
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
