/** Jest runs the TypeScript sources directly through swc (type checking is `tsc --noEmit` in `npm test`). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  // Every envelope an in-process hub writes is checked against its JSON Schema when each file ends.
  setupFilesAfterEnv: ['<rootDir>/test/support/envelope-recorder-setup.ts'],
  testTimeout: 20000,
  maxWorkers: 2,
};
