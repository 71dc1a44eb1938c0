/**
 * A do-nothing gateway for the leg-overhead benchmark: it forwards each POST body verbatim to the
 * router with undici (as the hub does), reads the whole reply, and sends it back. What one extra HTTP
 * hop costs on this machine, so the hub's added latency can be told apart from the hop's. An SSE reply is
 * relayed chunk by chunk as it arrives (the raw-generate streaming baseline); any other is sent whole.
 * argv[2]: the router's base URL. Prints `READY <url>`; stops when its parent goes away.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { answerAllocation } from './alloc-sampler';

const upstream = new Pool(process.argv[2]);

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    upstream
      .request({ method: 'POST', path: req.url ?? '/', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
      .then(async (r) => {
        const type = String(r.headers['content-type'] ?? 'application/json');
        if (type.startsWith('text/event-stream')) {
          res.writeHead(r.statusCode, { 'content-type': type, 'cache-control': 'no-cache' });
          for await (const chunk of r.body) res.write(chunk);
          res.end();
          return;
        }
        const body = Buffer.from(await r.body.arrayBuffer());
        res.writeHead(r.statusCode, { 'content-type': type, 'content-length': body.length });
        res.end(body);
      })
      .catch((err: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('message', (msg: { type?: string; action?: string }) => {
  // What the proxy allocates between a start and a stop: the allocation benchmark's baseline.
  if (msg?.type === 'alloc') void answerAllocation(msg.action).then((report) => process.send?.(report));
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
