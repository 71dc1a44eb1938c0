/**
 * How one environment variable is read: trimmed (blank is unset), typed, validated. Every reader throws
 * ConfigError naming the variable, so a bad value stops start-up with one line that says which setting.
 */
import nodePath from 'node:path';
import { trimEndChars } from '../text-scan';

export type Env = Record<string, string | undefined>;

/** What a variable's reader sees: the environment and the folder relative paths resolve against. */
export interface ReadContext {
  env: Env;
  root: string;
}

export type Reader<T> = (ctx: ReadContext, name: string) => T;

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** A setting's trimmed value, undefined when unset or blank. */
export function raw(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** The value as given, or `dflt`. */
export function text<D extends string | null>(dflt: D): Reader<string | D> {
  return ({ env }, name) => raw(env, name) ?? dflt;
}

/** A comma-separated list (empty entries dropped). */
export function list(): Reader<string[]> {
  return ({ env }, name) => (raw(env, name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** A path resolved against the root (`dflt` when unset). */
export function filePath(dflt: string): Reader<string> {
  return ({ env, root }, name) => nodePath.resolve(root, raw(env, name) ?? dflt);
}

/** A number of the hub's settings: finite, optionally whole, optionally bounded below. */
export function number(dflt: number | (() => number), opts: { min?: number; integer?: boolean } = {}): Reader<number> {
  return ({ env }, name) => {
    const v = raw(env, name);
    if (v === undefined) return typeof dflt === 'function' ? dflt() : dflt;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new ConfigError(name, `expected a number, got '${v}'`);
    if (opts.integer && !Number.isInteger(n)) throw new ConfigError(name, `expected a whole number, got '${v}'`);
    if (opts.min !== undefined && n < opts.min) throw new ConfigError(name, `must be at least ${opts.min}, got '${v}'`);
    return n;
  };
}

/** A whole number of the knowledge layer's settings (its own message, kept as it was). */
export function wholeAtLeast(dflt: number, min: number): Reader<number> {
  return ({ env }, name) => {
    const v = raw(env, name);
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new ConfigError(name, `expected a whole number of at least ${min}, got '${v}'`);
    return n;
  };
}

/** One of `allowed`, compared lower-cased; `expected` words the message ("router, embedded or auto"). */
export function choice<const T extends string>(dflt: NoInfer<T>, allowed: readonly T[], expected: string): Reader<T> {
  return ({ env }, name) => {
    const v = (raw(env, name) ?? dflt).toLowerCase();
    if (!(allowed as readonly string[]).includes(v)) throw new ConfigError(name, `expected ${expected}, got '${v}'`);
    return v as T;
  };
}

export function bool(dflt: boolean): Reader<boolean> {
  const read = choice(dflt ? 'true' : 'false', ['true', 'false'], 'true or false');
  return (ctx, name) => read(ctx, name) === 'true';
}

/** An http(s) URL without trailing slashes (`dflt` when unset). */
export function url(dflt: string): Reader<string> {
  return ({ env }, name) => {
    const v = raw(env, name) ?? dflt;
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      throw new ConfigError(name, `not a valid URL: '${redactUrlLike(v)}'`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(name, 'must be an http(s) URL');
    return trimEndChars(v, '/'); // a scan: `/\/+$/` retried a run of slashes from each of its positions
  };
}

function redactUrlLike(v: string): string {
  return v.replace(/\/\/[^@/]*@/, '//[redacted]@');
}
