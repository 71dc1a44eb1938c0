/**
 * The transport baseline of a product turn: the router requests of the last turn (counts and chats, as
 * captured at the router) replayed from this process with undici, as the hub sends them — the body
 * as a string, the reply read whole and parsed. What the HTTP exchanges alone cost any client.
 */
import { Pool } from 'undici';
import type { SpawnedRouter } from './spawn-router';

export interface TurnReplay {
  replay(turns: number): Promise<void>;
  close(): Promise<void>;
}

export async function turnReplay(router: SpawnedRouter, perTurn: number): Promise<TurnReplay> {
  const requests = (await router.lastRequests(perTurn)).map((r) => ({ path: r.path, payload: JSON.stringify(r.body) }));
  const pool = new Pool(router.baseUrl, { connections: 1 });
  return {
    async replay(turns) {
      for (let i = 0; i < turns; i++) {
        for (const r of requests) {
          const res = await pool.request({ method: 'POST', path: r.path, headers: { 'content-type': 'application/json' }, body: r.payload });
          JSON.parse(await res.body.text());
        }
      }
    },
    close: () => pool.destroy(),
  };
}
