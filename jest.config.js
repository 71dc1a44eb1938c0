/** Jest runs the TypeScript sources directly through swc (type checking is `tsc --noEmit` in `npm test`). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/clients'],
  testMatch: ['**/*.test.ts'],
  // The ESM client (clients/js) imports its modules as `./x.js`, as Node's ESM resolver needs; jest runs the `.ts` source.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  // Every envelope an in-process hub writes is checked against its JSON Schema when each file ends.
  setupFilesAfterEnv: ['<rootDir>/test/support/envelope-recorder-setup.ts'],
  testTimeout: 20000,
  maxWorkers: 2,
};
