/**
 * The adapter route table behind `ctx.llm`: provider names are exclusive across the runtime, registration
 * is all-or-nothing, and `replace` swaps a registration's routes in one synchronous section.
 */
import { mergeRetryPolicy, type LlmAdapter, type LlmProviderInfo, type LlmRetryPolicy } from './adapter.js'
import { errorChain, LlmError } from './errors.js'

/** Longest allowed provider (route) name. */
const MAX_PROVIDER_NAME_LENGTH = 64

/** One live route: the owning registration plus the info and policy read at (re)registration. */
export interface AdapterRoute {
  readonly provider: string
  readonly owner: RegistrationRecord
  readonly info: LlmProviderInfo
  readonly retryPolicy: LlmRetryPolicy
}

/** The registry's record of one `registerAdapter` call. */
export interface RegistrationRecord {
  readonly adapter: LlmAdapter
  providers: readonly string[]
  disposed: boolean
}

/** True when `name` is a valid provider name: non-empty, no whitespace, at most 64 characters. */
function isValidProviderName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && name.length <= MAX_PROVIDER_NAME_LENGTH && !/\s/.test(name)
}

function invalid(message: string, cause?: unknown): LlmError {
  return new LlmError(message, 'INVALID_ADAPTER', cause === undefined ? undefined : { cause })
}

/** Checks the adapter object itself (`INVALID_ADAPTER`). */
function checkAdapter(adapter: unknown): asserts adapter is LlmAdapter {
  if ((typeof adapter !== 'object' && typeof adapter !== 'function') || adapter === null)
    throw invalid('LLM adapter must be an object')
  const a = adapter as Record<string, unknown>
  if (typeof a.stream !== 'function') throw invalid('LLM adapter is missing its stream() method')
  for (const optional of ['providerInfo', 'listModels', 'resolveModel', 'retryPolicy']) {
    if (a[optional] !== undefined && typeof a[optional] !== 'function')
      throw invalid(`LLM adapter ${optional} must be a method when present`)
  }
}

/** Reads and validates one route's provider info and retry policy (`INVALID_ADAPTER`). */
function readRoute(adapter: LlmAdapter, provider: string): { info: LlmProviderInfo; retryPolicy: LlmRetryPolicy } {
  let info: LlmProviderInfo
  if (adapter.providerInfo) {
    let raw: unknown
    try {
      raw = adapter.providerInfo(provider)
    } catch (error) {
      throw invalid(`providerInfo("${provider}") threw: ${errorChain(error)}`, error)
    }
    const r = raw as Partial<LlmProviderInfo> | null | undefined
    if (typeof r !== 'object' || r === null || r.id !== provider || typeof r.name !== 'string' || r.name === '')
      throw invalid(`providerInfo("${provider}") must return {id: "${provider}", name: <non-empty string>}`)
    info = Object.freeze({ id: provider, name: r.name })
  } else {
    info = Object.freeze({ id: provider, name: provider })
  }
  let retryPolicy: LlmRetryPolicy
  try {
    retryPolicy = mergeRetryPolicy(adapter.retryPolicy?.(provider))
  } catch (error) {
    throw invalid(`invalid retry policy for provider "${provider}": ${errorChain(error)}`, error)
  }
  return { info, retryPolicy }
}

/** The route table. All methods are synchronous, so no caller can observe a half-applied change. */
export class AdapterRegistry {
  private readonly routes = new Map<string, AdapterRoute>()

  /** The live route for `provider`, if any. */
  get(provider: string): AdapterRoute | undefined {
    return this.routes.get(provider)
  }

  /** Live routes in registration order. */
  list(): AdapterRoute[] {
    return [...this.routes.values()]
  }

  /**
   * Validates a complete provider set for `record` (or a new registration when `record` is undefined) and
   * returns the routes to install. Throws `INVALID_ADAPTER` or `DUPLICATE_ADAPTER`; changes nothing.
   */
  private plan(
    providers: unknown,
    adapter: LlmAdapter,
    record: RegistrationRecord | undefined,
  ): Map<string, AdapterRoute> {
    if (!Array.isArray(providers)) throw invalid('provider names must be given as a list')
    if (!record && providers.length === 0) throw invalid('registerAdapter needs at least one provider name')
    const seen = new Set<string>()
    for (const name of providers as unknown[]) {
      if (!isValidProviderName(name))
        throw invalid(
          `invalid provider name ${JSON.stringify(name)}: a provider name is a non-empty string without whitespace, at most ${MAX_PROVIDER_NAME_LENGTH} characters`,
        )
      if (seen.has(name)) throw invalid(`provider "${name}" is listed twice`)
      seen.add(name)
    }
    for (const name of seen) {
      const taken = this.routes.get(name)
      if (taken && taken.owner !== record)
        throw new LlmError(`provider "${name}" is already registered by another LLM adapter`, 'DUPLICATE_ADAPTER')
    }
    const planned = new Map<string, AdapterRoute>()
    const owner = record ?? { adapter, providers: [], disposed: false }
    for (const name of seen) planned.set(name, { provider: name, owner, ...readRoute(adapter, name) })
    return planned
  }

  /** Registers `adapter` under `providers` (all-or-nothing) and returns its record. */
  register(providers: readonly string[], adapter: LlmAdapter): RegistrationRecord {
    checkAdapter(adapter)
    const planned = this.plan(providers, adapter, undefined)
    const record = planned.values().next().value!.owner as RegistrationRecord
    record.providers = Object.freeze([...planned.keys()])
    for (const [name, route] of planned) this.routes.set(name, route)
    return record
  }

  /**
   * Swaps `record`'s routes for `providers` in one synchronous section. Names the record keeps stay in place;
   * new names are appended. `[]` is allowed. Throws `REGISTRATION_DISPOSED` after disposal.
   */
  replace(record: RegistrationRecord, providers: readonly string[]): void {
    if (record.disposed)
      throw new LlmError(
        `LLM adapter registration for ${record.providers.map((p) => `"${p}"`).join(', ') || '(no providers)'} was disposed`,
        'REGISTRATION_DISPOSED',
      )
    const planned = this.plan(providers, record.adapter, record)
    for (const name of record.providers) if (!planned.has(name)) this.routes.delete(name)
    for (const [name, route] of planned) this.routes.set(name, route)
    record.providers = Object.freeze([...planned.keys()])
  }

  /** Removes `record`'s routes. Returns false when it was already disposed. */
  remove(record: RegistrationRecord): boolean {
    if (record.disposed) return false
    record.disposed = true
    for (const name of record.providers) {
      if (this.routes.get(name)?.owner === record) this.routes.delete(name)
    }
    return true
  }
}
