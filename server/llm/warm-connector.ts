/**
 * A connector for undici's Pool that keeps one spare, already connected socket to the model backend.
 * llama-server's router answers every proxied call with `Connection: close` (router.md quirk 11), so each
 * model call would otherwise open its TCP connection on its own critical path (~0.4 ms here, on every
 * call of a turn and before every raw generate's first token). The spare is opened ahead of demand — when a
 * request that will call the model arrives (`preconnect`), and again whenever a connection is handed out —
 * so the next call finds it ready. An idle spare lives at most `maxAgeMs` (well below the 5 s a
 * llama-server keeps an idle connection), never keeps the process alive, and is dropped the moment the
 * backend closes it; a spare that fails to connect is replaced by a fresh connect for its taker, so a call
 * never fails for the spare's sake.
 */
import type { Socket } from 'node:net';
import type { buildConnector as BuildConnectorType } from 'undici';

export const UNDICI_CONNECT_MODULE = 'undici/lib/core/connect.js';
export const SPARE_MAX_AGE_MS = 2000;

type ConnectParams = BuildConnectorType.Options;
type ConnectCallback = BuildConnectorType.Callback;
/** undici's connector shape; like undici's own, a base connector returns the socket it opens. */
export type Connector = (params: ConnectParams, cb: ConnectCallback) => unknown;

/** undici's own connector factory, loaded alone (the package index costs ~9 MB; see undici-pool.ts). */
export const buildConnector = require(UNDICI_CONNECT_MODULE) as typeof BuildConnectorType;

export interface WarmConnector {
  /** The Pool's `connect` option. */
  connect: Connector;
  /** Opens the spare now unless one is open or opening: a model call is about to come. */
  preconnect(): void;
  /** Destroys the spare and stops opening new ones (the pool is closing). */
  close(): void;
  /** For tests: the spare's state. */
  spareState(): 'none' | 'connecting' | 'ready';
}

export interface WarmConnectorOptions {
  /** Connect timeout of every socket (ROUTER_CONNECT_TIMEOUT_SECONDS). */
  timeoutMs: number;
  maxAgeMs?: number;
  /** The connector that opens sockets (undici's by default; it must return the socket, as undici's does). */
  base?: Connector;
  now?: () => number;
}

interface Spare {
  socket: Socket;
  connected: boolean;
  openedAt: number;
  timer: NodeJS.Timeout;
  /** A caller that took the spare while it was still connecting. */
  taker: ConnectCallback | null;
  /** Drops this spare when the backend closes it while idle. */
  onClosed: () => void;
}

/** The connect parameters undici's client passes for `origin` (IPv6 brackets stripped, as undici does). */
function paramsOf(origin: URL): ConnectParams {
  const hostname = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname;
  return { host: origin.host, hostname, protocol: origin.protocol, port: origin.port, localAddress: null };
}

export function warmConnector(origin: URL, opts: WarmConnectorOptions): WarmConnector {
  const base = opts.base ?? buildConnector({ timeout: opts.timeoutMs });
  const maxAgeMs = opts.maxAgeMs ?? SPARE_MAX_AGE_MS;
  const now = opts.now ?? (() => performance.now());
  const ours = paramsOf(origin);
  let spare: Spare | null = null;
  let closed = false;

  const discard = (s: Spare) => {
    if (spare === s) spare = null;
    clearTimeout(s.timer);
    if (!s.taker) s.socket.destroy();
  };

  const open = () => {
    if (closed || spare) return;
    const s = { connected: false, openedAt: now(), taker: null } as unknown as Spare;
    s.socket = base(ours, (err, socket) => {
      const taker = s.taker;
      s.taker = null;
      if (err || !socket) {
        discard(s);
        if (taker) base(ours, taker); // the spare failed: its taker connects afresh
        return;
      }
      if (taker) return handOut(s, taker);
      if (spare !== s) return void socket.destroy();
      s.connected = true;
    }) as Socket;
    // Idle, the spare must not hold the process open, and a close from the backend drops it.
    s.socket.unref();
    s.onClosed = () => discard(s);
    s.socket.once('end', s.onClosed);
    s.socket.once('close', s.onClosed);
    s.timer = setTimeout(() => discard(s), maxAgeMs);
    s.timer.unref();
    spare = s;
  };

  const handOut = (s: Spare, cb: ConnectCallback) => {
    s.socket.off('end', s.onClosed);
    s.socket.off('close', s.onClosed);
    s.socket.ref();
    // Never synchronously inside undici's connect call: its client expects the callback later, as a connect is.
    queueMicrotask(() => cb(null, s.socket));
  };

  const usable = (s: Spare) => !s.socket.destroyed && (!s.connected || now() - s.openedAt <= maxAgeMs);

  const connect: Connector = (params, cb) => {
    const s = spare;
    const sameOrigin = params.hostname === ours.hostname && String(params.port) === String(ours.port) && params.protocol === ours.protocol;
    if (!s || !sameOrigin) return base(params, cb);
    spare = null;
    clearTimeout(s.timer);
    if (!usable(s)) {
      s.socket.destroy();
      return base(params, cb);
    }
    if (s.connected) handOut(s, cb);
    else s.taker = cb;
    // The next call finds its own spare; opened after this call's request is written, not before it.
    setImmediate(open);
    return s.socket;
  };

  return {
    connect,
    preconnect: open,
    close() {
      closed = true;
      if (spare) discard(spare);
    },
    spareState: () => (spare === null ? 'none' : spare.connected ? 'ready' : 'connecting'),
  };
}
