import { z } from 'zod'

// The OpenTelemetry environment variables Anvil honours (the SDK specification's names and meanings),
// validated with the rest of the configuration so a typo fails at boot instead of silently tracing
// nothing. Plain zod, no OpenTelemetry import: this file is loaded whether tracing is on or not.

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const
export type SamplerName = (typeof SAMPLERS)[number]

const flag = z
  .enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False', ''])
  .transform((v) => v.toLowerCase() === 'true')

// an empty variable counts as unset, as the specification says
const blankIsUnset = (v: unknown) => (v === '' ? undefined : v)

const protocol = z.preprocess(
  blankIsUnset,
  z
    .enum(['http/json', 'http/protobuf', 'grpc'])
    .refine((p) => p === 'http/json', {
      message:
        'Anvil exports OTLP over HTTP with JSON encoding: set http/json (collectors take it on the same ' +
        '/v1/traces endpoint as http/protobuf) or leave it unset',
    })
    .optional(),
)

export const tracingEnvSchema = {
  OTEL_SDK_DISABLED: flag.default(false),
  OTEL_TRACES_EXPORTER: z.preprocess(
    blankIsUnset,
    z
      .enum(['otlp', 'none'], { message: "must be otlp or none (Anvil's only exporter is OTLP/HTTP)" })
      .optional(),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(blankIsUnset, z.url({ protocol: /^https?$/ }).optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.preprocess(blankIsUnset, z.url({ protocol: /^https?$/ }).optional()),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_SERVICE_NAME: z.preprocess(blankIsUnset, z.string().min(1).optional()),
  OTEL_TRACES_SAMPLER: z.preprocess(
    blankIsUnset,
    z.enum(SAMPLERS, { message: `must be one of ${SAMPLERS.join(', ')}` }).default('parentbased_always_on'),
  ),
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(blankIsUnset, z.coerce.number().min(0).max(1).optional()),
}

type TracingEnv = z.output<z.ZodObject<typeof tracingEnvSchema>>

export interface TracingConfig {
  // where spans are POSTed (OTLP/HTTP JSON)
  url: string
  // OTEL_SERVICE_NAME; unset: the process's own name (anvil-gateway, anvil-job-worker)
  serviceName: string | undefined
  sampler: SamplerName
  // the ratio of the traceidratio samplers (default 1)
  ratio: number
}

// Tracing is on when an OTLP endpoint is configured and the SDK is not disabled; off costs nothing (the
// SDK is never imported, see open.ts). The signal-specific endpoint is used as is; the general one gets
// /v1/traces appended, as the OTLP exporter specification says.
export function tracingConfig(env: TracingEnv): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED || env.OTEL_TRACES_EXPORTER === 'none') return undefined
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
      : undefined)
  if (!url) return undefined
  return {
    url,
    serviceName: env.OTEL_SERVICE_NAME,
    sampler: env.OTEL_TRACES_SAMPLER,
    ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1,
  }
}
