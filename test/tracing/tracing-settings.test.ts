import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'

const base = { DATA_DIR: '/tmp/anvil-tracing-settings' }
const tracing = (env: Record<string, string>) => loadConfig({ ...base, ...env }).tracing

describe('tracing settings: the OpenTelemetry environment variables, as the specification reads them', () => {
  it('is off without an endpoint, or when the SDK or the exporter is disabled', () => {
    expect(tracing({})).toBeUndefined()
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined()
    expect(
      tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined()
    expect(
      tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined()
  })

  it('appends /v1/traces to the general endpoint, takes the traces endpoint as is (and prefers it)', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url).toBe(
      'http://collector:4318/v1/traces',
    )
    expect(tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c.example/otlp/spans' })?.url).toBe(
      'https://c.example/otlp/spans',
    )
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:4318/v1/traces',
      })?.url,
    ).toBe('http://other:4318/v1/traces')
  })

  it('defaults to parentbased_always_on with ratio 1; takes the sampler, its argument and the service name', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toMatchObject({
      sampler: 'parentbased_always_on',
      ratio: 1,
      serviceName: undefined,
    })
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_SERVICE_NAME: 'edge-gateway',
      }),
    ).toMatchObject({ sampler: 'parentbased_traceidratio', ratio: 0.25, serviceName: 'edge-gateway' })
  })

  it.each([
    ['OTEL_TRACES_SAMPLER', 'sometimes'],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'http/protobuf'],
    ['OTEL_TRACES_EXPORTER', 'zipkin'],
  ])('refuses %s=%s at boot, naming the variable', (name, value) => {
    expect(() =>
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', [name]: value }),
    ).toThrow(ConfigError)
    expect(() =>
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', [name]: value }),
    ).toThrow(name)
  })
})
