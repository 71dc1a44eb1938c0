/** The process logger (pino). Log lines never carry chart or message text (decision 12). */
import pino, { type DestinationStream, type Logger } from 'pino';

/** `destination` defaults to standard output; tests pass a sink to read what the hub logs. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'med-agent-hub' }, redact: ['req.headers.authorization', 'headers.authorization'] };
  return destination ? pino(options, destination) : pino(options);
}
export type { DestinationStream, Logger };
