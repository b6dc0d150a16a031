import type { TracingConfig } from './settings.ts'
import type { Tracing, TracingLog } from './types.ts'

// Opens tracing when an OTLP endpoint is configured. The SDK is imported here, on demand, and nowhere
// else: with no endpoint, no OpenTelemetry module is loaded, no hook is registered and no request pays
// anything (test/tracing/tracing-off.test.ts checks the module graph of a real gateway).
export async function openTracing(
  config: TracingConfig | undefined,
  defaultServiceName: string,
  serviceVersion: string,
  log: TracingLog,
): Promise<Tracing | undefined> {
  if (!config) return undefined
  const { startTracing } = await import('./sdk.ts')
  return startTracing(config, { serviceName: config.serviceName ?? defaultServiceName, serviceVersion }, log)
}
