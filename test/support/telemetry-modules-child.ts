/**
 * Child of test/integration/telemetry.test.ts: starts a fake router and a hub configured from this process's
 * environment, answers one leg, and prints (JSON) the OpenTelemetry packages and the hub's otel.ts that are
 * loaded — what `require.cache` holds, which jest's own module registry would not show.
 */
import { FakeRouter } from './fake-router';
import { postJson, SMALL_CHART, startTestHub } from './hub';

async function main(): Promise<void> {
  const router = new FakeRouter({ models: ['gemma-4-12b'] });
  await router.start();
  router.script({ content: JSON.stringify({ answer: 'Weight is 71 kg [2].', citations: [2], blocks: [] }) });
  const otel = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, ...(otel ? { OTEL_EXPORTER_OTLP_ENDPOINT: otel } : {}) });
  const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~off', messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'weight?' }] });
  if (res.status !== 200) throw new Error(`leg answered ${res.status}`);
  await hub.close();
  await router.stop();
  const loaded = new Set<string>();
  for (const file of Object.keys(require.cache)) {
    const pkg = /[\\/]node_modules[\\/](@opentelemetry[\\/][^\\/]+)/.exec(file);
    if (pkg) loaded.add(pkg[1].replace('\\', '/'));
    if (/[\\/]server[\\/]telemetry[\\/]otel\.ts$/.test(file)) loaded.add('server/telemetry/otel.ts');
  }
  process.stdout.write(JSON.stringify([...loaded].sort()));
}

main().catch((err: unknown) => {
  process.stderr.write(String(err instanceof Error ? err.stack : err));
  process.exit(1);
});
