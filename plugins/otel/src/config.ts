import { configParser, nullAsAbsent, parseConfig } from '@bridle/llm'
import type { TracerProvider } from '@opentelemetry/api'
import { z } from 'zod'

/** The environment variables whose values are redacted from captured contents unless `secretEnv` says otherwise. */
export const DEFAULT_SECRET_ENV: readonly string[] = [
  'DEEPSEEK_API_KEY',
  'BRIDLE_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
]

const isTracerProvider = (value: unknown): value is TracerProvider =>
  typeof value === 'object' && value !== null && typeof (value as { getTracer?: unknown }).getTracer === 'function'

/**
 * Config of `@bridle/otel` (zod 4 strict object; `null` counts as absent, unknown keys are rejected).
 * - `tracerProvider`: the OpenTelemetry tracer provider to use (the app owns it: the plugin never shuts it down).
 *   Without one, the plugin builds its own from the standard environment variables (`OTEL_TRACES_EXPORTER`,
 *   `OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) and shuts it down when it unloads.
 * - `exporter`: for the built provider, `otlp` (OTLP/HTTP, the default), `console` or `none`; overrides
 *   `OTEL_TRACES_EXPORTER`.
 * - `serviceName`: the built provider's `service.name`; overrides `OTEL_SERVICE_NAME` (default `bridle`).
 * - `captureContent`: put message contents on the spans (system instructions, tool definitions, input and output
 *   messages, tool arguments and results), redacted; off by default, as the GenAI conventions recommend.
 * - `secrets`: more values to redact from captured contents and error messages.
 * - `secretEnv`: environment variables whose values are redacted (default: the model keys Bridle reads).
 */
export const ConfigSchema = z
  .strictObject({
    tracerProvider: nullAsAbsent(
      z
        .custom<TracerProvider>(isTracerProvider, {
          message: 'tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer)',
        })
        .optional(),
    ),
    exporter: nullAsAbsent(z.enum(['otlp', 'console', 'none']).optional()),
    serviceName: nullAsAbsent(z.string().min(1).optional()),
    captureContent: nullAsAbsent(z.boolean().default(false)),
    secrets: nullAsAbsent(z.array(z.string()).default([])),
    secretEnv: nullAsAbsent(z.array(z.string().min(1)).default([...DEFAULT_SECRET_ENV])),
  })
  .refine((c) => c.tracerProvider === undefined || (c.exporter === undefined && c.serviceName === undefined), {
    path: ['tracerProvider'],
    message: 'exporter and serviceName configure the provider the plugin builds; with a tracerProvider, set them on it',
  })

export type OtelConfig = z.output<typeof ConfigSchema>
/** What an app passes to `ctx.plugin` (every field optional; `null` counts as absent). */
export type OtelConfigInput = z.input<typeof ConfigSchema>

/** Parses a raw config; throws `ConfigError` naming `otel` and every failing field. Idempotent. */
export const Config = configParser((raw?: OtelConfigInput | null): OtelConfig => parseConfig('otel', ConfigSchema, raw))
