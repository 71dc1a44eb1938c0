/**
 * Locus-style client keys (knowledge-layer.md §1.1, §6.3): `Authorization: Bearer lsk_<slug>_<32 hex>`
 * (slugs hold no underscore, so the parse is unambiguous). Only SHA-256 digests are stored (a key file of
 * clients, or an env list of digests), compared in constant time against every entry; each client has an
 * `active` flag and an optional daily quota that resets at 00:00 UTC (the clock is injected). Errors use
 * Locus's codes in the decision-1 shape. No key, nor its digest, is ever logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { compileConstant, constantSchemaAjv } from '../../json-schemas';
import type { NextFunction, Request, Response } from 'express';
import { HubError } from '../../errors';
import { sendError } from '../../wire';

export const KEY_PATTERN = /^lsk_([a-z0-9-]+)_[0-9a-f]{32}$/;

export interface KnowledgeClient {
  /** The slug the key must carry; `*` for a bare digest from the environment (any slug). */
  slug: string;
  keySha256: string;
  active: boolean;
  /** Requests per UTC day; null = unlimited. */
  dailyQuota: number | null;
}

const KEY_FILE_SCHEMA = {
  type: 'object',
  required: ['clients'],
  properties: {
    clients: {
      type: 'array',
      items: {
        type: 'object',
        required: ['slug', 'key_sha256'],
        additionalProperties: false,
        properties: {
          slug: { type: 'string', pattern: '^[a-z0-9-]+$' },
          key_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          active: { type: 'boolean', default: true },
          daily_quota: { type: ['integer', 'null'], minimum: 1 },
          note: { type: 'string' },
        },
      },
    },
  },
} as const;

interface KeyFile {
  clients: Array<{ slug: string; key_sha256: string; active?: boolean; daily_quota?: number | null }>;
}

const validateKeyFile = compileConstant<KeyFile>(constantSchemaAjv({ strict: false, useDefaults: true }), KEY_FILE_SCHEMA);

/** Reads a key file (`{"clients": [{slug, key_sha256, active?, daily_quota?}]}`); throws naming the problem. */
export function parseKeyFile(text: string, where = 'key file'): KnowledgeClient[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${where}: not valid JSON`);
  }
  if (!validateKeyFile(data)) {
    const e = validateKeyFile.errors?.[0];
    // The message names the field, never a value (a plaintext key put there by mistake must not be echoed).
    throw new Error(`${where}: ${e?.instancePath || '/'} ${e?.message ?? 'is invalid'} (each client needs slug and key_sha256, the SHA-256 hex of its lsk_ key)`);
  }
  return data.clients.map((c) => ({ slug: c.slug, keySha256: c.key_sha256, active: c.active !== false, dailyQuota: c.daily_quota ?? null }));
}

export function loadKeyFile(path: string): KnowledgeClient[] {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${path}: cannot read the knowledge key file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseKeyFile(text, path);
}

/** Bare digests (KNOWLEDGE_API_KEY_HASHES): active, any slug, no quota. */
export function clientsFromHashes(hashes: readonly string[]): KnowledgeClient[] {
  return hashes.map((h) => ({ slug: '*', keySha256: h.toLowerCase(), active: true, dailyQuota: null }));
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Per-client request counts for the current UTC day; a new day starts every count at zero. */
export class DailyQuota {
  private day = '';
  private readonly used = new Map<number, number>();
  constructor(private readonly clock: () => Date) {}

  /** Counts `units` requests (all or none); false when they would overspend the client's quota for today. */
  take(client: number, quota: number | null, units = 1): { ok: boolean; retryAfterSeconds: number } {
    const now = this.clock();
    const today = utcDay(now);
    if (today !== this.day) {
      this.day = today;
      this.used.clear();
    }
    const next = new Date(`${today}T00:00:00.000Z`).getTime() + 86_400_000;
    const retryAfterSeconds = Math.max(1, Math.ceil((next - now.getTime()) / 1000));
    if (quota === null) return { ok: true, retryAfterSeconds };
    const n = this.used.get(client) ?? 0;
    if (n + units > quota) return { ok: false, retryAfterSeconds };
    this.used.set(client, n + units);
    return { ok: true, retryAfterSeconds };
  }
}

function unauthorized(code: 'AUTH_MISSING' | 'AUTH_INVALID_FORMAT' | 'AUTH_INVALID_KEY', message: string): HubError {
  return new HubError(code, message, { headers: { 'WWW-Authenticate': 'Bearer' } });
}

/**
 * The REST routes' middleware (identify, then one quota unit per request), with its two halves exposed for
 * `/mcp`, where every request is identified but only tool calls cost quota. Both share one counter, so a
 * client's daily quota covers REST and MCP together.
 */
export interface LskAuth {
  (req: Request, res: Response, next: NextFunction): void;
  /** Key present, well-formed, known and active; sets `res.locals.knowledgeClient`. No quota is taken. */
  identify(req: Request, res: Response, next: NextFunction): void;
  /** Takes `units` from the identified client's quota; on overspend sends 429 RATE_LIMIT and returns false. */
  charge(res: Response, units?: number): boolean;
}

/** Every configured client: the key file's, then the bare digests (a bad key file throws with its path). */
export function knowledgeClients(config: { keysFile: string | null; keyHashes: readonly string[] }): KnowledgeClient[] {
  return [...(config.keysFile ? loadKeyFile(config.keysFile) : []), ...clientsFromHashes([...config.keyHashes])];
}

/** The slug an open route (KNOWLEDGE_AUTH=off) logs for every caller. */
export const OPEN_CLIENT = 'open-access';

/** Said to every caller while no key is configured: the fix is on the hub, not in the request (decision 30). */
export const NO_KEYS_CONFIGURED =
  'No knowledge client key is configured on this hub: its operator sets KNOWLEDGE_KEYS_FILE or KNOWLEDGE_API_KEY_HASHES (npm run hash-key -- <key>), or KNOWLEDGE_AUTH=off on a trusted network.';

export function lskAuth(opts: { clients: readonly KnowledgeClient[]; clock?: () => Date; open?: boolean }): LskAuth {
  const digests = opts.clients.map((c) => Buffer.from(c.keySha256, 'hex'));
  const quota = new DailyQuota(opts.clock ?? (() => new Date()));
  const identify = (req: Request, res: Response, next: NextFunction): void => {
    if (req.method === 'OPTIONS') return next();
    if (opts.open) {
      res.locals.knowledgeClient = OPEN_CLIENT;
      return next();
    }
    if (digests.length === 0) return sendError(res, unauthorized('AUTH_MISSING', NO_KEYS_CONFIGURED));
    const header = req.header('authorization');
    if (header === undefined || header.trim() === '' || /^bearer\s*$/i.test(header.trim())) {
      return sendError(res, unauthorized('AUTH_MISSING', 'This endpoint needs a client key: send Authorization: Bearer lsk_<slug>_<32 hex>.'));
    }
    // `Bearer lsk_…`; a bare `lsk_…` (what the Locus docs playground asks users to paste) is accepted too.
    const m = /^(?:bearer\s+)?(\S+)$/i.exec(header.trim());
    const key = m?.[1] ?? '';
    const parsed = KEY_PATTERN.exec(key);
    if (!parsed) return sendError(res, unauthorized('AUTH_INVALID_FORMAT', 'The client key is not of the form lsk_<slug>_<32 hex>.'));
    const given = createHash('sha256').update(key, 'utf8').digest();
    // Every digest is compared, so the time taken does not reveal which entry (if any) matched.
    let found = -1;
    for (let i = 0; i < digests.length; i++) if (timingSafeEqual(given, digests[i]) && found < 0) found = i;
    const client = found >= 0 ? opts.clients[found] : null;
    if (!client || (client.slug !== '*' && client.slug !== parsed[1])) return sendError(res, unauthorized('AUTH_INVALID_KEY', 'The client key is unknown or revoked.'));
    if (!client.active) return sendError(res, new HubError('AUTH_CLIENT_INACTIVE', 'This client is inactive.'));
    res.locals.knowledgeClient = parsed[1];
    res.locals.knowledgeClientIndex = found;
    next();
  };
  const charge = (res: Response, units = 1): boolean => {
    const index = res.locals.knowledgeClientIndex as number | undefined;
    if (index === undefined) return true;
    const taken = quota.take(index, opts.clients[index].dailyQuota, units);
    if (taken.ok) return true;
    sendError(res, new HubError('RATE_LIMIT', 'The daily quota of this client is spent; it resets at 00:00 UTC.', { headers: { 'Retry-After': String(taken.retryAfterSeconds) } }));
    return false;
  };
  const auth = (req: Request, res: Response, next: NextFunction): void =>
    identify(req, res, () => {
      if (req.method === 'OPTIONS' || charge(res)) next();
    });
  return Object.assign(auth, { identify, charge });
}
