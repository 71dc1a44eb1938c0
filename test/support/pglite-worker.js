// PGlite (Postgres in WASM, with pgvector and unaccent) in a worker thread. PGlite loads its WASM and extension
// bundles with dynamic `import()`, which jest's module sandbox refuses; a worker runs outside that sandbox, in
// the same process. Protocol: {id, text, params} → {id, rows} | {id, error}; {id, close: true} → {id, rows: []}.
'use strict';
const { parentPort } = require('node:worker_threads');
const { PGlite } = require('@electric-sql/pglite');
const { vector } = require('@electric-sql/pglite-pgvector');
const { unaccent } = require('@electric-sql/pglite/contrib/unaccent');

const ready = PGlite.create({ extensions: { vector, unaccent } });
ready.then(
  () => parentPort.postMessage({ ready: true }),
  (err) => parentPort.postMessage({ ready: false, error: { message: String(err && err.message) } }),
);

parentPort.on('message', async (msg) => {
  try {
    const db = await ready;
    if (msg.close) {
      await db.close();
      parentPort.postMessage({ id: msg.id, rows: [] });
      return;
    }
    const res = await db.query(msg.text, msg.params || []);
    parentPort.postMessage({ id: msg.id, rows: res.rows });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: { message: String(err && err.message), code: err && err.code } });
  }
});
