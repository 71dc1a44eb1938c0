/**
 * The spare-connection connector (server/llm/warm-connector.ts) behind the router client's pool, against
 * a loopback HTTP server that closes every connection after its response, as llama-server's router does
 * (router.md quirk 11). Everything is asserted by the server's own connection counts and by states.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Pool } from '../../../server/llm/undici-pool';
import { buildConnector, warmConnector, type Connector } from '../../../server/llm/warm-connector';

interface Backend {
  url: URL;
  /** Connections accepted so far, and the sockets still open. */
  accepted: () => number;
  open: Set<Socket>;
  /** Resolves once `n` connections have been accepted. */
  acceptedAtLeast: (n: number) => Promise<void>;
  /** Resolves once at most `n` accepted connections are still open. */
  openAtMost: (n: number) => Promise<void>;
  close: () => Promise<void>;
}

async function startBackend(): Promise<Backend> {
  const open = new Set<Socket>();
  let accepted = 0;
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
      res.end(`served on ${req.socket.remotePort}`);
    });
  });
  server.on('connection', (s: Socket) => {
    accepted++;
    open.add(s);
    s.on('close', () => {
      open.delete(s);
      wake();
    });
    wake();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const until = async (ok: () => boolean) => {
    while (!ok()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    accepted: () => accepted,
    open,
    acceptedAtLeast: (n) => until(() => accepted >= n),
    openAtMost: (n) => until(() => open.size <= n),
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function get(pool: Pool): Promise<string> {
  const res = await pool.request({ method: 'GET', path: '/' });
  return res.body.text();
}

/** undici's connector, counting the sockets it opens (the spare's and any fresh one). */
function countingBase(): { base: Connector; opened: () => number } {
  const real = buildConnector({ timeout: 5000 });
  let opened = 0;
  return {
    base: (params, cb) => {
      opened++;
      return real(params, cb);
    },
    opened: () => opened,
  };
}

describe('warmConnector', () => {
  let backend: Backend;
  beforeEach(async () => {
    backend = await startBackend();
  });
  afterEach(async () => {
    await backend.close();
  });

  test('a call after preconnect is served on the spare, and a new spare is opened behind it', async () => {
    const { base, opened } = countingBase();
    const warm = warmConnector(backend.url, { timeoutMs: 5000, base });
    const pool = new Pool(backend.url.origin, { connect: warm.connect });
    try {
      warm.preconnect();
      warm.preconnect(); // one spare at a time
      await backend.acceptedAtLeast(1);
      expect(opened()).toBe(1);
      const spare = [...backend.open][0];
      const served = await get(pool);
      expect(served).toBe(`served on ${spare.remotePort}`);
      await backend.acceptedAtLeast(2);
      expect(opened()).toBe(2);
      expect(warm.spareState()).not.toBe('none');
      // Three calls in a row: each is served on the spare its predecessor left, one fresh socket each.
      for (let i = 0; i < 3; i++) await get(pool);
      await backend.acceptedAtLeast(5);
      expect(opened()).toBe(5);
    } finally {
      warm.close();
      await pool.close();
    }
    await backend.openAtMost(0);
    expect(warm.spareState()).toBe('none');
  });

  test('a spare the backend closes while idle is dropped, and the next call connects afresh', async () => {
    const { base, opened } = countingBase();
    const warm = warmConnector(backend.url, { timeoutMs: 5000, base });
    const pool = new Pool(backend.url.origin, { connect: warm.connect });
    try {
      warm.preconnect();
      await backend.acceptedAtLeast(1);
      for (const s of backend.open) s.destroy();
      await backend.openAtMost(0);
      while (warm.spareState() !== 'none') await new Promise((r) => setImmediate(r));
      await expect(get(pool)).resolves.toMatch(/^served on /);
      expect(opened()).toBeGreaterThanOrEqual(2);
    } finally {
      warm.close();
      await pool.close();
    }
  });

  test('a spare older than its age limit is never handed out: it is closed and the call connects afresh', async () => {
    let clock = 0;
    const { base, opened } = countingBase();
    const warm = warmConnector(backend.url, { timeoutMs: 5000, base, maxAgeMs: 1000, now: () => clock });
    const pool = new Pool(backend.url.origin, { connect: warm.connect });
    try {
      warm.preconnect();
      await backend.acceptedAtLeast(1);
      const spare = [...backend.open][0];
      while (warm.spareState() !== 'ready') await new Promise((r) => setImmediate(r));
      clock = 1001;
      const served = await get(pool);
      expect(served).not.toBe(`served on ${spare.remotePort}`);
      expect(opened()).toBe(2);
    } finally {
      warm.close();
      await pool.close();
    }
  });

  test('a spare that cannot connect gives its taker a fresh connect, so the call still succeeds', async () => {
    const refused = await startBackend();
    const deadUrl = refused.url;
    await refused.close(); // nothing listens there any more
    const real = buildConnector({ timeout: 5000 });
    let calls = 0;
    // The spare goes to the dead port; every later connect to the live backend.
    const base: Connector = (params, cb) => {
      calls++;
      return real(calls === 1 ? { ...params, hostname: deadUrl.hostname, port: deadUrl.port } : params, cb);
    };
    const warm = warmConnector(backend.url, { timeoutMs: 5000, base });
    const pool = new Pool(backend.url.origin, { connect: warm.connect });
    try {
      warm.preconnect();
      await expect(get(pool)).resolves.toMatch(/^served on /);
      expect(calls).toBeGreaterThanOrEqual(2);
    } finally {
      warm.close();
      await pool.close();
    }
  });

  test('after close, preconnect opens nothing', async () => {
    const { base, opened } = countingBase();
    const warm = warmConnector(backend.url, { timeoutMs: 5000, base });
    warm.preconnect();
    await backend.acceptedAtLeast(1);
    warm.close();
    await backend.openAtMost(0);
    warm.preconnect();
    expect(warm.spareState()).toBe('none');
    expect(opened()).toBe(1);
  });
});
