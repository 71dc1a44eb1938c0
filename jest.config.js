/** Jest runs the TypeScript sources directly through swc (type checking is `tsc --noEmit` in `npm test`). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/clients'],
  testMatch: ['**/*.test.ts'],
  // The ESM client (clients/js) imports its modules as `./x.js`, as Node's ESM resolver needs; jest runs the `.ts` source.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
    // The OTLP exporter loads node:http with a dynamic import(), which jest's module sandbox refuses (Node runs it
    // as is): compiled to commonjs here, that import() becomes a require(), so an in-process hub can export spans.
    '/@opentelemetry/otlp-exporter-base/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@opentelemetry/otlp-exporter-base/)'],
  // Every envelope an in-process hub writes is checked against its JSON Schema when each file ends.
  setupFilesAfterEnv: ['<rootDir>/test/support/envelope-recorder-setup.ts'],
  testTimeout: 20000,
  maxWorkers: 2,
};
