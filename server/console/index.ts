/**
 * The one door of the console (issue 30): the static page at `/console` that asks the hub's own API from a
 * browser. `app.ts` mounts the router this returns before the API-key check: the page holds no data, and
 * every API call it makes carries the key typed into it.
 */
export { CONSOLE_PATH, consoleRouter, defaultConsoleDir, type ConsoleOptions } from './router';
export { CONSOLE_CSP } from './headers';
