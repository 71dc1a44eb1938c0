/**
 * `npm run knowledge`: the knowledge layer alone (same routes and settings as when the hub mounts it), on
 * KNOWLEDGE_PORT, with an open `/health`. Stops cleanly on SIGTERM / SIGINT.
 */
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';
import { loadConfigOrExit, type Config } from '../config';
import { HubError } from '../errors';
import { sendError } from '../wire';
import { createLogger, type DestinationStream } from '../logger';
import { createKnowledgeService, type KnowledgeService } from './service';

export interface RunningKnowledge {
  server: Server;
  url: string;
  service: KnowledgeService;
  close(): Promise<void>;
}

export async function startKnowledge(config: Config, opts: { logDestination?: DestinationStream; clock?: () => Date } = {}): Promise<RunningKnowledge> {
  const logger = createLogger(config.logLevel, opts.logDestination);
  const service = await createKnowledgeService(config.knowledge, { logger, maxBodyBytes: config.maxBodyBytes, clock: opts.clock });
  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_req: Request, res: Response) => void res.json({ status: 'healthy', service: 'knowledge' }));
  app.use(service.router);
  app.use((_req: Request, res: Response) => sendError(res, new HubError('not_found', 'No such route.')));
  const server = app.listen(config.knowledge.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.knowledge.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    server,
    url: `http://${host}:${port}`,
    service,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit('med-agent-hub knowledge');
  const running = await startKnowledge(config);
  process.stdout.write(`med-agent-hub knowledge layer listening on ${running.url} (${running.service.store.engine} store)\n`);
  const stop = () => void running.close().then(() => process.exit(0), () => process.exit(1));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`med-agent-hub knowledge: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
