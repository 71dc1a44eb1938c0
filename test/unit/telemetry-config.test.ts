/** The OpenTelemetry settings: the standard OTEL_* variables, read through the one table (server/config). */
import path from 'node:path';
import { ConfigError, loadConfig } from '../../server/config';

const ROOT = path.resolve(__dirname, '../..');

describe('OpenTelemetry settings', () => {
  test('off without an endpoint', () => {
    expect(loadConfig({}, ROOT).telemetry).toBeNull();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' }, ROOT).telemetry).toBeNull();
  });

  test.each<[Record<string, string>, string]>([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'http://collector:4318/v1/traces'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, 'http://collector:4318/v1/traces'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp' }, 'https://c.example/otlp/v1/traces'],
    // The signal's own endpoint is used as given, and wins over the base.
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/custom/path' }, 'http://t:9/custom/path'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/x' }, 'http://t:9/x'],
  ])('%j exports to %s', (env, url) => {
    expect(loadConfig(env, ROOT).telemetry?.tracesUrl).toBe(url);
  });

  test('defaults and explicit values', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, ROOT).telemetry).toEqual({ tracesUrl: 'http://c:4318/v1/traces', headers: {}, serviceName: 'med-agent-hub', timeoutMs: 10000 });
    const t = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'hub-eu', OTEL_EXPORTER_OTLP_TIMEOUT: '2500', OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc%3D%3D , x-tenant=clinic-1,' }, ROOT).telemetry;
    expect(t).toMatchObject({ serviceName: 'hub-eu', timeoutMs: 2500, headers: { authorization: 'Bearer abc==', 'x-tenant': 'clinic-1' } });
  });

  test.each<[Record<string, string>, string]>([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://c/x' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_TIMEOUT: '0' }, 'OTEL_EXPORTER_OTLP_TIMEOUT'],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' }, 'OTEL_EXPORTER_OTLP_HEADERS'],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'bad key=v' }, 'OTEL_EXPORTER_OTLP_HEADERS'],
  ])('%j is refused naming %s', (env, variable) => {
    expect(() => loadConfig(env, ROOT)).toThrow(ConfigError);
    expect(() => loadConfig(env, ROOT)).toThrow(new RegExp(`^${variable}: `));
  });

  test('a malformed header value is refused without repeating it (it may be a credential)', () => {
    let message = '';
    try {
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=secret%zz' }, ROOT);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^OTEL_EXPORTER_OTLP_HEADERS: /);
    expect(message).not.toContain('secret');
  });
});
