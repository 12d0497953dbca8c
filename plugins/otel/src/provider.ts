/**
 * A tracer provider from the standard OpenTelemetry environment variables, for an app that does not bring its own:
 * `OTEL_TRACES_EXPORTER` (`otlp`, `console`, `none`, or a comma-separated list), the OTLP/HTTP exporter's
 * `OTEL_EXPORTER_OTLP_*` variables (it reads them itself), `OTEL_BSP_*` for its batch processor, `OTEL_SERVICE_NAME`
 * and `OTEL_RESOURCE_ATTRIBUTES`, and `OTEL_SDK_DISABLED=true` (no exporter at all).
 */
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { LazyOtlpExporter } from './lazy-otlp-exporter.js'
import { SERVICE_NAME } from './semconv.js'

export type ExporterKind = 'otlp' | 'console' | 'none'

const KINDS: readonly ExporterKind[] = ['otlp', 'console', 'none']

/** The exporters `OTEL_TRACES_EXPORTER` names (default `otlp`); throws on a name this package cannot build. */
export function exportersFromEnv(env: NodeJS.ProcessEnv = process.env): ExporterKind[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return ['none']
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
  if (names.length === 0) return ['otlp']
  for (const name of names) {
    if (!KINDS.includes(name as ExporterKind)) {
      throw new Error(
        `OTEL_TRACES_EXPORTER: exporter "${name}" is not supported by @bridle/otel (supported: ${KINDS.join(', ')})`,
      )
    }
  }
  return names as ExporterKind[]
}

function processorOf(kind: ExporterKind): SpanProcessor | undefined {
  switch (kind) {
    case 'otlp':
      return new BatchSpanProcessor(new LazyOtlpExporter())
    case 'console':
      return new SimpleSpanProcessor(new ConsoleSpanExporter())
    case 'none':
      return undefined
  }
}

/**
 * A provider with the given exporters (default: from `OTEL_TRACES_EXPORTER`) and the resource the environment
 * describes; `service.name` is `serviceName`, else `OTEL_SERVICE_NAME` (or `service.name` in
 * `OTEL_RESOURCE_ATTRIBUTES`), else `bridle`. The caller owns it: `shutdown()` flushes and stops it.
 */
export function tracerProviderFromEnv(
  options: { exporters?: readonly ExporterKind[]; serviceName?: string } = {},
): BasicTracerProvider {
  const exporters = options.exporters ?? exportersFromEnv()
  const spanProcessors = exporters.flatMap((kind) => processorOf(kind) ?? [])
  return new BasicTracerProvider({ resource: environmentResource(options.serviceName), spanProcessors })
}

/**
 * The resource the environment describes (`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`) over the SDK's default;
 * `service.name` is `serviceName`, else the environment's, else `bridle`.
 */
export function environmentResource(serviceName?: string): Resource {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [SERVICE_NAME]: 'bridle' }))
    .merge(detectResources({ detectors: [envDetector] }))
  return serviceName === undefined ? resource : resource.merge(resourceFromAttributes({ [SERVICE_NAME]: serviceName }))
}
