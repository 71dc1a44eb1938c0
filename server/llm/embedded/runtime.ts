/**
 * Loads node-llama-cpp (ESM-only, with top-level await) and its linux-x64 CPU prebuilt, once per process.
 * Nothing is ever built or downloaded: `build: 'never'` and the CPU prebuilt shipped in the registry package.
 * The router backend never loads this module, so a router deployment pays nothing for it.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as NodeLlamaCpp from 'node-llama-cpp';

export type LlamaModule = typeof NodeLlamaCpp;
export type Llama = NodeLlamaCpp.Llama;

export interface LlamaRuntime {
  lib: LlamaModule;
  llama: Llama;
}

// A real dynamic import: the CommonJS output of tsc and swc would turn `import()` into `require()`, which
// cannot load an ESM graph with top-level await.
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

let pending: Promise<LlamaRuntime> | null = null;

/** The engine runtime; a failure (no prebuilt for this machine, a broken install) is remembered as the reason. */
export function loadRuntime(): Promise<LlamaRuntime> {
  pending ??= (async () => {
    // Resolved like require() (NODE_PATH included), then imported by file URL: an ESM import would ignore NODE_PATH.
    const entry = createRequire(__filename).resolve('node-llama-cpp');
    const lib = (await importEsm(pathToFileURL(entry).href)) as LlamaModule;
    const llama = await lib.getLlama({
      gpu: false,
      build: 'never',
      usePrebuiltBinaries: true,
      progressLogs: false,
      logLevel: lib.LlamaLogLevel.error,
      // Engine logs may quote prompt text: only errors, and through our logger's rules (never the text).
      logger: () => undefined,
    });
    return { lib, llama };
  })();
  return pending;
}

/** A short, path-free explanation of why the runtime could not load. */
export function runtimeFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return `the node-llama-cpp linux-x64 CPU prebuilt could not be loaded on this machine (${message.split('\n')[0].slice(0, 200)})`;
}
