/** The process logger (pino). Log lines never carry chart or message text (decision 12). */
import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'med-agent-hub' }, redact: ['req.headers.authorization', 'headers.authorization'] });
}
export type { Logger };
