/**
 * A route as a cordis plugin (docs/model-calls.md#routes-and-adapters): one plugin row is one route on `ctx.llm`,
 * registered as an effect of the row's context, so disposing the row (or a hot reload) removes the route and ends its
 * calls in flight. The route's credentials join the process's secret filter from the moment it loads, before any call
 * (docs/security.md#what-is-filtered): the key's variable, and header values whose names mark a credential.
 */
import type { Context } from 'cordis'
import type { LlmAdapter } from '../adapter.js'
import { configParser } from '../config.js'
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
 * Registers `adapter` as the route `route.provider` on `ctx.llm`, an effect of `ctx`: disposing the plugin (or a hot
 * reload) removes the route and ends its calls in flight. The route's credentials are filtered from the moment it
 * loads, before any call.
 */
export function registerRoute(ctx: Context, route: RouteCredentials, adapter: LlmAdapter & { dispose(): void }): void {
  holdSecrets(route.apiKeyEnv === null ? undefined : process.env[route.apiKeyEnv], ...namedCredentials(route.headers))
  ctx.effect(() => () => adapter.dispose())
  ctx.llm.registerAdapter([route.provider], adapter)
}

/**
 * The functional cordis plugin of a route adapter: `name`, `inject: ['llm']`, `reusable` (one row is one route, and a
 * deployment that talks to two servers mounts two rows), `Config` (parses with `resolve`, throwing `ConfigError`) and
 * `apply`, which registers `adapterOf(config)` with `registerRoute`.
 */
export function routePlugin<N extends string, Raw, C extends RouteCredentials>(
  name: N,
  resolve: (raw: Raw) => C,
  adapterOf: (config: C) => LlmAdapter & { dispose(): void },
) {
  return {
    name,
    inject: ['llm'],
    reusable: true,
    Config: configParser(resolve),
    apply(ctx: Context, config: C): void {
      registerRoute(ctx, config, adapterOf(config))
    },
  }
}
