// `node -r ./eval/register.js eval/cli.ts`: TypeScript through scripts/register-ts.js, plus the one thing the
// ESM client (clients/js) needs under CommonJS: its `./x.js` imports resolve to the `.ts` source beside them.
require('../scripts/register-ts.js');
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveJsToTs(request, parent, ...rest) {
  try {
    return resolve.call(this, request, parent, ...rest);
  } catch (err) {
    if (!request.startsWith('.') || !request.endsWith('.js')) throw err;
    return resolve.call(this, `${request.slice(0, -3)}.ts`, parent, ...rest);
  }
};
