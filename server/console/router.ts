/**
 * Serves the console's built files (`npm run build` compiles `console/` into `dist/console/`): the page shell,
 * its stylesheet and its ES modules, read-only, GET and HEAD only. Nothing here reads patient data or calls
 * the engine: the page asks the API like any client, with the key typed into it.
 */
import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { HubError } from '../errors';
import { sendError } from '../wire';
import { CONSOLE_HEADERS } from './headers';

export const CONSOLE_PATH = '/console';

export interface ConsoleOptions {
  /** The built console (default: `dist/console` of this checkout, from source or from `dist/`). */
  dir?: string;
}

/** Only what the build emits is served: no source maps, no declarations, no dotfiles. */
const SERVED_EXTENSIONS = new Set(['.html', '.css', '.js', '.svg']);

/** `dist/console` beside the compiled server (`dist/server/console/` → `dist/console`), or under the checkout when run from source. */
export function defaultConsoleDir(): string {
  const twoUp = path.resolve(__dirname, '../..');
  return path.basename(twoUp) === 'dist' ? path.join(twoUp, 'console') : path.join(twoUp, 'dist', 'console');
}

export function consoleRouter(opts: ConsoleOptions = {}): express.Router {
  const dir = opts.dir ?? defaultConsoleDir();
  const files = express.static(dir, {
    index: 'index.html',
    dotfiles: 'ignore',
    etag: false,
    fallthrough: true,
    setHeaders: (res) => {
      for (const [name, value] of Object.entries(CONSOLE_HEADERS)) res.setHeader(name, value);
    },
  });
  const router = express.Router();
  router.use(CONSOLE_PATH, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // Looked up per request, so a build made while the hub runs is served without a restart.
    if (!fs.existsSync(path.join(dir, 'index.html'))) {
      return sendError(res, new HubError('not_found', 'The console is not built in this installation: run npm run build (it compiles console/ into dist/console/).'));
    }
    const ext = path.extname(req.path);
    if (ext !== '' && !SERVED_EXTENSIONS.has(ext)) return sendError(res, new HubError('not_found', 'No such console file.'));
    files(req, res, (err?: unknown) => (err ? next(err) : sendError(res, new HubError('not_found', 'No such console file.'))));
  });
  return router;
}
