/**
 * The one door of the chat endpoint family (hub-contract §2.1, §2.2, §3): `POST /v1/chat/completions` (product
 * profiles and low-level legs) and `GET /v1/models`. `app.ts` mounts the router this returns.
 */
import express from 'express';
import { chatCompletionsHandler, type ChatRouteDeps } from './completions';
import { modelsHandler } from './models';

export { CHAT_REQUEST_SCHEMA, parseChatRequest } from './request-schema';

/** Everything the chat routes use: the engine's dependencies plus the trace, the revision and the turn counter. */
export type ChatDeps = ChatRouteDeps;

export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';
export const MODELS_PATH = '/v1/models';

export function chatRouter(deps: ChatDeps): express.Router {
  const router = express.Router();
  router.get(MODELS_PATH, modelsHandler({ router: deps.router, profiles: () => deps.catalog.profiles }));
  router.post(CHAT_COMPLETIONS_PATH, chatCompletionsHandler(deps));
  return router;
}
