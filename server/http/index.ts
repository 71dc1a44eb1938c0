/** The hub's HTTP layer: the middleware app.ts mounts, the meta, admin and metrics routes, and /openapi.json. */
export { accessLog } from './middleware/access-log';
export { apiKeyAuth } from './middleware/auth';
export { cors } from './middleware/cors';
export { notFound, unhandledError } from './middleware/errors';
export { requestId } from './middleware/request-id';
export { buildOpenApi } from './openapi';
export { pathGate } from './path-gate';
export { preconnectModelBackend } from './preconnect';
export { mountAdmin } from './routes/admin';
export { mountMeta } from './routes/meta';
export { mountMetrics } from './routes/metrics';
