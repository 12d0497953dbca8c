/**
 * `LlmRuntime`, the `ctx.llm` service: the adapter registry (exclusive provider names, registrations as
 * effects of the caller's context), model resolution, one-shot prepared calls, and `stream()` through the
 * `llm/stream` waterfall. The `Context` property and both events are declared here, where they are emitted.
 */
import type { CachePlan, CachePlanInput } from './cache.js'
import type { Context } from 'cordis'
import { z } from 'zod'
import { HomeService, waterfall } from '@bridle/scope'
import type { LlmAdapter, LlmModelInfo, LlmProviderInfo, LlmRetryPolicy } from './adapter.js'
import { redactChunks } from './chunk-redaction.js'
import { terminalStream, noAdapterError, type CapturedAdapter } from './dispatch.js'
import { configParser, parseConfig } from './config.js'
import { errorChain, LlmError } from './errors.js'
import { resolveCallConfig, resolveModelInfo, validateCatalog } from './model.js'
import { AdapterRegistry, type RegistrationRecord } from './registry.js'
import {
  callConfigEquals,
  callConfigOf,
  type GenerateOptions,
  type LlmCallConfig,
  type LlmCallConfigAdapterDefaults,
} from './request.js'
import type { StreamChunk } from './stream.js'

declare module 'cordis' {
  interface Context {
    llm: LlmRuntime
  }
  interface Events<C extends Context = Context> {
    /**
     * Waterfall around every model call (`ctx.llm.stream` and prepared calls). Every listener gets the same
     * `options`; `next()` takes no arguments and returns the inner stream. Listeners may wrap it or return
     * their own iterable. Marked loop requests are frozen: read them, never rewrite them.
     */
    'llm/stream'(
      this: LlmRuntime,
      options: GenerateOptions,
      next: () => AsyncIterable<StreamChunk>,
    ): AsyncIterable<StreamChunk>
    /** Emitted (no payload) after every register, replace and dispose, once the change is visible. */
    'llm/adapters-updated'(): void
  }
}

/** `ctx.llm` takes no options: any key is a config error. */
export const ConfigSchema = z.object({}).strict()
export type LlmRuntimeConfig = z.infer<typeof ConfigSchema>
/** What an app may pass: nothing (the runtime has no options; any key is a `ConfigError`). */
export type LlmRuntimeConfigInput = Record<string, never>

/** Parses the (empty) `LlmRuntime` config, throwing `ConfigError` (plugin `llm`) for any key. */
export const Config = configParser(
  (raw?: LlmRuntimeConfigInput | null): LlmRuntimeConfig => parseConfig('llm', ConfigSchema, raw),
)

/** The handle `registerAdapter` returns: call it to dispose (idempotent). */
export interface AdapterRegistration {
  (): void
  /**
   * Swaps this registration's provider names for `providers` without an observable gap. The full new set is
   * validated first (`[]` allowed; the registration's own names do not count as taken). Throws
   * `REGISTRATION_DISPOSED` after disposal.
   */
  replace(providers: readonly string[]): void
  /** The provider names this registration currently owns. */
  readonly providers: readonly string[]
  /** True once disposed (directly or by disposing the registering plugin). */
  readonly disposed: boolean
}

/** A resolved, one-shot model call returned by `prepareCall`. */
export interface PreparedLlmCall {
  /** The resolved config, with model defaults materialized. */
  readonly config: LlmCallConfig
  /** Which fields the model defaults supplied (`{}` when none). */
  readonly adapterDefaults: LlmCallConfigAdapterDefaults
  readonly model: LlmModelInfo
  readonly context?: { readonly contextWindow: number }
  readonly retryPolicy: LlmRetryPolicy
  /**
   * Dispatches once through `llm/stream` to the captured adapter. Throws `INVALID_PREPARED_CALL` synchronously
   * when called twice or when the request's call config differs from `config`.
   */
  stream(options: GenerateOptions): AsyncIterable<StreamChunk>
  /**
   * The captured adapter's breakpoint placement for a request of this call (`LlmAdapter.planCache`); present only
   * when the adapter places breakpoints. A throwing policy is the caller's error.
   */
  readonly planCache?: (input: CachePlanInput) => CachePlan | undefined
}

/**
 * Runs `llm/stream` lazily: nothing happens until the first `next()`. What comes out is filtered as a stream of every
 * credential the process holds (docs/security.md#streams), whoever produced it: an adapter or a listener.
 */
function dispatchStream(
  ctx: Context,
  thisArg: LlmRuntime,
  registry: AdapterRegistry,
  options: GenerateOptions,
  captured?: CapturedAdapter,
): AsyncIterable<StreamChunk> {
  return redactChunks(
    (async function* () {
      yield* waterfall(ctx, thisArg, 'llm/stream', options, (request: GenerateOptions) =>
        terminalStream(registry, request, captured),
      )
    })(),
  )
}

/** The provider-neutral model seam, provided as `ctx.llm`. */
export class LlmRuntime extends HomeService<LlmRuntimeConfig> {
  static Config = Config

  private readonly registry = new AdapterRegistry()

  constructor(ctx: Context, config?: LlmRuntimeConfigInput | null) {
    super(ctx, 'llm', Config(config))
  }

  /** Emits `llm/adapters-updated`; a throwing listener is logged and does not undo the change. */
  private notifyUpdated(): void {
    try {
      this.home.emit('llm/adapters-updated')
    } catch (error) {
      this.home.logger('llm').warn(`llm/adapters-updated listener threw: ${errorChain(error)}`)
    }
  }

  /**
   * Registers `adapter` for the route names in `providers`, as an effect of the CALLER's context (disposing
   * that plugin removes the routes). All-or-nothing: `INVALID_ADAPTER` for bad names, duplicates inside the
   * list, a malformed adapter, bad provider info or retry policy; `DUPLICATE_ADAPTER` when another live
   * registration owns a name. Emits `llm/adapters-updated` after the change.
   */
  registerAdapter(providers: readonly string[], adapter: LlmAdapter): AdapterRegistration {
    const registry = this.registry
    const notify = () => this.notifyUpdated()
    let record: RegistrationRecord | undefined
    const dispose = this.ctx.effect(() => {
      const current = registry.register(providers, adapter)
      record = current
      return () => {
        if (registry.remove(current)) notify()
      }
    })
    notify()
    const owned = record!
    const handle = (() => {
      dispose()
    }) as AdapterRegistration
    Object.defineProperties(handle, {
      replace: {
        value: (next: readonly string[]) => {
          registry.replace(owned, next)
          notify()
        },
      },
      providers: { get: () => owned.providers },
      disposed: { get: () => owned.disposed },
    })
    return handle
  }

  /** The live routes as frozen `{id, name}` records, in registration order. */
  listProviders(): readonly LlmProviderInfo[] {
    return Object.freeze(this.registry.list().map((route) => route.info))
  }

  /** True when a live registration owns `provider`. */
  hasProvider(provider: string): boolean {
    return this.registry.get(provider) !== undefined
  }

  /** The route's validated, deep-frozen model catalog. `NO_ADAPTER` / `INVALID_CATALOG`. */
  async listModels(provider: string): Promise<readonly LlmModelInfo[]> {
    const route = this.registry.get(provider)
    if (!route) throw noAdapterError(provider)
    const adapter = route.owner.adapter
    const list = adapter.listModels ? await adapter.listModels(provider) : []
    return validateCatalog(list, provider)
  }

  /** The route's frozen retry policy (read at registration). `NO_ADAPTER` for unknown routes. */
  retryPolicy(provider: string): LlmRetryPolicy {
    const route = this.registry.get(provider)
    if (!route) throw noAdapterError(provider)
    return route.retryPolicy
  }

  /**
   * The exact model's validated, deep-frozen info from the owning adapter (or the default
   * `{provider, id: model, name: model}`). `NO_ADAPTER`, `INVALID_MODEL_*`, or `ABORTED` when `signal` fires.
   */
  async resolveModel(provider: string, model: string, signal?: AbortSignal): Promise<LlmModelInfo> {
    const route = this.registry.get(provider)
    if (!route) throw noAdapterError(provider)
    return resolveModelInfo(route.owner.adapter, provider, model, signal)
  }

  /**
   * Resolves `config` against the exact model and returns a frozen one-shot call bound to the adapter that
   * owned the route when this call STARTED (re-registration during resolution does not re-route). Rejects
   * with `NO_ADAPTER` (the loop then falls back to unprepared `stream`), `INVALID_MODEL_*`,
   * `UNSUPPORTED_REASONING_EFFORT` or `ABORTED`.
   */
  async prepareCall(config: LlmCallConfig, signal?: AbortSignal): Promise<PreparedLlmCall> {
    const route = this.registry.get(config.provider)
    if (!route) throw noAdapterError(config.provider)
    const captured: CapturedAdapter = Object.freeze({ adapter: route.owner.adapter })
    const retryPolicy = route.retryPolicy
    const ctx = this.ctx
    const self = this
    const registry = this.registry
    const model = await resolveModelInfo(captured.adapter, config.provider, config.model, signal)
    const resolved = resolveCallConfig(config, model)
    let dispatched = false
    const prepared: { -readonly [K in keyof PreparedLlmCall]: PreparedLlmCall[K] } = {
      config: resolved.config,
      adapterDefaults: resolved.adapterDefaults,
      model,
      retryPolicy,
      stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
        if (dispatched) throw new LlmError('a prepared LLM call can only be dispatched once', 'INVALID_PREPARED_CALL')
        if (!callConfigEquals(callConfigOf(options), resolved.config))
          throw new LlmError('prepared LLM call config changed before adapter dispatch', 'INVALID_PREPARED_CALL')
        dispatched = true
        return dispatchStream(ctx, self, registry, options, captured)
      },
    }
    const planner = captured.adapter.planCache
    if (planner !== undefined) {
      prepared.planCache = (input: CachePlanInput): CachePlan | undefined => planner.call(captured.adapter, input)
    }
    if (model.context) prepared.context = model.context
    return Object.freeze(prepared)
  }

  /**
   * Streams one model call through the `llm/stream` waterfall. Returns immediately; work starts on the first
   * `next()`. The terminal stage resolves the config, strips foreign `replayState`, calls the route's adapter
   * and turns every failure into one terminal `finish` chunk. Errors thrown by listeners stay thrown.
   */
  stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
    return dispatchStream(this.ctx, this, this.registry, options)
  }
}
