/**
 * The base of an adapter that serves one route from a config catalog (docs/model-calls.md#routes-and-adapters): the
 * metadata methods answer from the catalog without I/O, the runtime's default retry policy applies (the adapter's own
 * retries of the request phase are transport-level and independent), and `dispose()` ends the calls in flight. The
 * subclass streams.
 */
import type { LlmAdapter, LlmModelInfo } from '../adapter.js'
import { reasoningEffortId } from '../ids.js'
import type { GenerateOptions } from '../request.js'
import type { StreamChunk } from '../stream.js'
import { RouteCalls } from './route-calls.js'

/** One catalog row, as far as the metadata methods read it. */
export interface CatalogModel {
  readonly id: string
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly contextWindow: number
  readonly defaultMaxTokens?: number | undefined
  readonly defaultReasoningEffort?: string | undefined
}

/** What the metadata methods read of a route's config. */
export interface CatalogRoute<M extends CatalogModel = CatalogModel> {
  readonly provider: string
  readonly displayName: string
  readonly models: readonly M[]
}

/** How a route's catalog reads. */
export interface CatalogRules<M extends CatalogModel> {
  /** The reasoning efforts a row offers, in order (none: the model takes no effort). */
  efforts(model: M): readonly string[]
  /** `defaultMaxTokens` of a model the catalog does not give one (a provider that requires the field). */
  fallbackMaxTokens?: number
}

export abstract class RouteAdapter<M extends CatalogModel, C extends CatalogRoute<M>> implements LlmAdapter {
  /** The calls in flight, ended by `dispose()`. */
  protected readonly calls: RouteCalls

  constructor(
    readonly config: C,
    private readonly rules: CatalogRules<M>,
  ) {
    this.calls = new RouteCalls(config.provider)
  }

  /** One logical provider attempt. Throws `LlmError`; `LlmRuntime` turns it into the `finish` chunk. */
  abstract stream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined>

  /** `{id: provider, name: displayName}`. */
  providerInfo(provider: string): { id: string; name: string } {
    return { id: provider, name: this.config.displayName }
  }

  /** One entry per catalog row, in config order. */
  listModels(provider: string): LlmModelInfo[] {
    return this.config.models.map((m) => ({
      provider,
      id: m.id,
      name: m.name ?? m.id,
      ...(m.description === undefined ? {} : { description: m.description }),
    }))
  }

  /**
   * Catalog facts for a listed model. An unlisted id resolves to a bare `{provider, id, name}` (with the fallback
   * `defaultMaxTokens` when the route has one).
   */
  resolveModel(provider: string, model: string): LlmModelInfo {
    const fallback = this.rules.fallbackMaxTokens
    const maxTokens = (m?: M) => m?.defaultMaxTokens ?? fallback
    const m = this.config.models.find((entry) => entry.id === model)
    if (m === undefined) return { provider, id: model, name: model, ...withMaxTokens(maxTokens()) }
    const efforts = this.rules.efforts(m)
    return {
      provider,
      id: m.id,
      name: m.name ?? m.id,
      ...(m.description === undefined ? {} : { description: m.description }),
      context: { contextWindow: m.contextWindow },
      ...withMaxTokens(maxTokens(m)),
      ...(efforts.length === 0
        ? {}
        : {
            reasoning: {
              efforts: efforts.map((id) => ({ id: reasoningEffortId(id), name: id })),
              ...(m.defaultReasoningEffort === undefined
                ? {}
                : { defaultEffort: reasoningEffortId(m.defaultReasoningEffort) }),
            },
          }),
    }
  }

  /** The runtime default applies. */
  retryPolicy(): undefined {
    return undefined
  }

  /** Ends every call in flight with `ABORTED` (the route was disposed); later calls fail the same way. */
  dispose(): void {
    this.calls.dispose()
  }
}

function withMaxTokens(value: number | undefined): { defaultMaxTokens?: number } {
  return value === undefined ? {} : { defaultMaxTokens: value }
}
