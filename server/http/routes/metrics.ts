/** `GET /metrics`: the Prometheus exposition of the hub's registry (mounted only when metrics are on). */
import type { Request, Response, Router } from 'express';
import type { HubMetrics } from '../../metrics';

export function mountMetrics(router: Router, metrics: HubMetrics): void {
  router.get('/metrics', async (_req: Request, res: Response) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });
}
