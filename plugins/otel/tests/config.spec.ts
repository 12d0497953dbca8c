/**
 * The plugin's config and the provider it builds from the environment: bad configs throw `ConfigError` naming the
 * plugin and the field; `OTEL_TRACES_EXPORTER` picks the exporters; the resource names the service.
 */
import { ConfigError } from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Config, exportersFromEnv, OtelTracing, secretsOf, tracerProviderFromEnv } from '../src/index.js'
import { boot, recorder, tick } from './support.js'

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('Config', () => {
  it('defaults: no contents, the model keys as secret variables', () => {
    expect(Config({})).toEqual({
      captureContent: false,
      secrets: [],
      secretEnv: ['DEEPSEEK_API_KEY', 'BRIDLE_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY'],
    })
  })

  it('refuses bad fields with ConfigError naming otel and each field', () => {
    expect(() => Config({ exporter: 'zipkin' } as never)).toThrow(ConfigError)
    expect(() => Config({ exporter: 'zipkin' } as never)).toThrow(/^otel: invalid config: exporter: /)
    expect(() => Config({ tracerProvider: {} } as never)).toThrow(
      'otel: invalid config: tracerProvider: tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer)',
    )
    expect(() => Config({ captureContent: 'yes', extra: 1 } as never)).toThrow(/captureContent: .*; \(root\): .*extra/)
    expect(() => Config({ tracerProvider: recorder().provider, exporter: 'console' })).toThrow(
      'otel: invalid config: tracerProvider: exporter and serviceName configure the provider the plugin builds; with a tracerProvider, set them on it',
    )
  })

  it('secrets: the configured values and those of the named variables that are set', () => {
    vi.stubEnv('MY_KEY', 'value-of-my-key')
    vi.stubEnv('EMPTY_KEY', '')
    expect(secretsOf(Config({ secrets: ['literal'], secretEnv: ['MY_KEY', 'EMPTY_KEY', 'UNSET_KEY'] }))).toEqual([
      'literal',
      'value-of-my-key',
    ])
  })
})

describe('the provider from the environment', () => {
  it('OTEL_TRACES_EXPORTER: default otlp, a list, none, and OTEL_SDK_DISABLED', () => {
    expect(exportersFromEnv({})).toEqual(['otlp'])
    expect(exportersFromEnv({ OTEL_TRACES_EXPORTER: ' console , otlp ' })).toEqual(['console', 'otlp'])
    expect(exportersFromEnv({ OTEL_TRACES_EXPORTER: 'none' })).toEqual(['none'])
    expect(exportersFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' })).toEqual(['none'])
    expect(() => exportersFromEnv({ OTEL_TRACES_EXPORTER: 'jaeger' })).toThrow(
      'OTEL_TRACES_EXPORTER: exporter "jaeger" is not supported by @bridle/otel (supported: otlp, console, none)',
    )
  })

  it('service.name: the option, else OTEL_SERVICE_NAME, else bridle', async () => {
    const nameOf = (provider: ReturnType<typeof tracerProviderFromEnv>) =>
      (provider as unknown as { _resource: { attributes: Record<string, unknown> } })._resource.attributes[
        'service.name'
      ]
    expect(nameOf(tracerProviderFromEnv({ exporters: ['none'] }))).toBe('bridle')
    vi.stubEnv('OTEL_SERVICE_NAME', 'from-env')
    expect(nameOf(tracerProviderFromEnv({ exporters: ['none'] }))).toBe('from-env')
    expect(nameOf(tracerProviderFromEnv({ exporters: ['none'], serviceName: 'from-option' }))).toBe('from-option')
  })

  it('a plugin without a provider builds one, and shuts it down when it unloads', async () => {
    const h = boot()
    let instance!: OtelTracing
    class Captured extends OtelTracing {
      constructor(...args: ConstructorParameters<typeof OtelTracing>) {
        super(...args)
        instance = this
      }
    }
    const fork = h.ctx.plugin(Captured, { exporter: 'none' })
    await tick()
    const provider = instance.tracerProvider as ReturnType<typeof tracerProviderFromEnv>
    const shutdown = vi.spyOn(provider, 'shutdown')
    await fork.dispose()
    await instance.stopped
    expect(shutdown).toHaveBeenCalledTimes(1)
  })

  it('an app-owned provider is never shut down by the plugin', async () => {
    const h = boot()
    const rec = recorder()
    const shutdown = vi.spyOn(rec.provider, 'shutdown')
    const fork = h.ctx.plugin(OtelTracing, { tracerProvider: rec.provider })
    await tick()
    await fork.dispose()
    expect(shutdown).not.toHaveBeenCalled()
  })
})
