/**
 * The gate in front of a sub-router (server/http/path-gate.ts) lets through exactly the requests the
 * sub-router's routes would match under Express's default routing (case-insensitive, an optional trailing
 * slash): checked against a real Express router, so the gate can never hide a route.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pathGate, routingPath } from '../../../server/http/path-gate';

describe('routingPath', () => {
  test.each([
    ['/v2/context', '/v2/context'],
    ['/V2/Context/', '/v2/context'],
    ['/', '/'],
    ['/mcp//', '/mcp/'],
  ])('%s → %s', (given, expected) => expect(routingPath(given)).toBe(expected));
});

describe('pathGate in an Express app', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const inner = express.Router();
    inner.post('/v2/context', (_req, res) => void res.send('inner'));
    inner.get('/v1/hub/query-profiles', (_req, res) => void res.send('inner'));
    const app = express();
    app.use(pathGate(inner, { paths: ['/v2/context'], prefixes: ['/v1/hub/'] }));
    app.use((_req, res) => void res.status(404).send('after'));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  test.each([
    ['POST', '/v2/context', 'inner'],
    ['POST', '/V2/CONTEXT', 'inner'],
    ['POST', '/v2/context/', 'inner'],
    ['POST', '/v2/context?x=1', 'inner'],
    ['GET', '/v1/hub/query-profiles', 'inner'],
    ['GET', '/V1/Hub/Query-Profiles/', 'inner'],
    ['POST', '/v2/contexts', 'after'],
    ['POST', '/v1/chat/completions', 'after'],
    ['GET', '/v1/hub', 'after'],
  ])('%s %s reaches %s', async (method, p, expected) => {
    const res = await fetch(`${url}${p}`, { method });
    expect(await res.text()).toBe(expected);
  });
});
