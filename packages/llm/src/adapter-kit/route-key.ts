/**
 * A route's credentials (docs/security.md#what-is-filtered): the key is read from its environment variable at each
 * call, never stored, and joins the process's secret filter when the route loads and again when a call reads it
 * (the variable may have been set or rotated since); header values whose names mark a credential join it too.
 */
import type { Context } from 'cordis'
import type { LlmAdapter } from '../adapter.js'
import { assertUsableApiKey } from '../credentials.js'
import { LlmError } from '../errors.js'
import { holdSecrets } from '../known-secrets.js'
import { namedCredentials } from '../url-credentials.js'

/** What registration reads of a route's config. */
export interface RouteCredentials {
  readonly provider: string
  /** The variable that holds the key; `null` for a keyless server. */
  readonly apiKeyEnv: string | null
  readonly headers: Readonly<Record<string, string>>
}

/**
 * Reads the key now (not at load) from `process.env[name]` and adds it to the secret filter: `null` when keyless;
 * `MISSING_CREDENTIAL` naming the variable when it is unset or empty, `INVALID_CREDENTIAL` when it is not printable
 * ASCII (never the value).
 */
export function readRouteKey(name: string): string
export function readRouteKey(name: string | null): string | null
export function readRouteKey(name: string | null): string | null {
  if (name === null) return null
  const raw = process.env[name]
  if (raw === undefined || raw === '') {
    throw new LlmError(`no API key: environment variable ${name} is not set`, 'MISSING_CREDENTIAL')
  }
  const key = assertUsableApiKey(raw, name)
  holdSecrets(raw, key)
  return key
}

/** What an error message of the route must never show: the key the call sent and every configured header value. */
export function routeSecrets(key: string | null, headers: Readonly<Record<string, string>>): string[] {
  return [...(key === null ? [] : [key]), ...Object.values(headers)]
}

/**
 * Registers `adapter` as the route `route.provider` on `ctx.llm`, an effect of `ctx`: disposing the plugin (or a hot
 * reload) removes the route and ends its calls in flight. The route's credentials are filtered from the moment it
 * loads, before any call.
 */
export function registerRoute(ctx: Context, route: RouteCredentials, adapter: LlmAdapter & { dispose(): void }): void {
  holdSecrets(route.apiKeyEnv === null ? undefined : process.env[route.apiKeyEnv], ...namedCredentials(route.headers))
  ctx.effect(() => () => adapter.dispose())
  ctx.llm.registerAdapter([route.provider], adapter)
}
