// Lets plain `node -r ./scripts/register-ts.js file.ts` run TypeScript sources (tests and benchmarks
// start real hub processes this way without a build step). Uses the swc compiler jest already uses.
const { transformSync } = require('@swc/core');
const fs = require('node:fs');

require.extensions['.ts'] = function compileTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    filename,
    sourceMaps: 'inline',
    module: { type: 'commonjs' },
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
  });
  module._compile(code, filename);
};
