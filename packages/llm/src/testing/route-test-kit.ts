/**
 * An adapter's test harness in one call: `boot` starts its loopback server with a script and mounts the route
 * against it (the key in its variable), `bootAdapter` registers an adapter the test owns instead (its retry clock,
 * its `dispose()`), `request`/`run` make and drive the default call, `teardown` restores the environment and checks
 * the script was consumed. The adapter's `tests/harness.ts` names the plugin, the server, the mock route and the key.
 */
import type { LlmAdapter } from '../adapter.js'
import { createUserMessage } from '../message.js'
import type { GenerateOptions } from '../request.js'
import type { Context } from 'cordis'
import {
  closeRoute,
  mountAdapter,
  mountRoute,
  runCall,
  type CallResult,
  type RouteHarness,
  type ScriptedServer,
} from './route-harness.js'

/** What the test kit is made of. */
export interface RouteTestSpec<S extends ScriptedServer, B, A extends LlmAdapter, Clock> {
  /** The adapter's plugin module (`import * as llmX from '…'`). */
  plugin: object
  /** Starts the adapter's loopback server with a script. */
  startServer(script: B[]): Promise<S>
  /** The mock route's config: its `provider`, the variable its key is read from, its catalog. */
  route: Record<string, unknown> & { provider: string; apiKeyEnv: string }
  /** The model of the default request. */
  model: string
  /** The key set in `route.apiKeyEnv`. */
  key: string
  /** How the test runner stubs an environment variable and restores them all (`vi.stubEnv`, `vi.unstubAllEnvs`). */
  env: { set(name: string, value: string): unknown; reset(): unknown }
  /** The adapter for a raw route config (the mock route with the server's URL and the overrides). */
  adapterOf(raw: Record<string, unknown>, clock?: Clock): A
}

/** Config overrides of one boot: an object, or one made from the server's URL. */
export type RouteOverrides = Record<string, unknown> | ((url: string) => Record<string, unknown>)

export interface RouteTestKit<S extends ScriptedServer, B, A extends LlmAdapter, Clock> {
  boot(script?: B[], overrides?: RouteOverrides): Promise<RouteHarness<S>>
  bootAdapter(script: B[], overrides: Record<string, unknown>, clock?: Clock): Promise<RouteHarness<S> & { adapter: A }>
  request(partial?: Partial<GenerateOptions>): GenerateOptions
  run(ctx: Context, partial?: Partial<GenerateOptions>): Promise<CallResult>
  teardown(h: RouteHarness<S> | undefined, options?: { strict?: boolean }): Promise<void>
}

export function routeTestKit<S extends ScriptedServer, B, A extends LlmAdapter, Clock>(
  spec: RouteTestSpec<S, B, A, Clock>,
): RouteTestKit<S, B, A, Clock> {
  const { route } = spec
  const request = (partial: Partial<GenerateOptions> = {}): GenerateOptions => ({
    provider: route.provider,
    model: spec.model,
    messages: [createUserMessage('hi')],
    ...partial,
  })
  return {
    async boot(script = [], overrides = {}) {
      spec.env.set(route.apiKeyEnv, spec.key)
      const server = await spec.startServer(script)
      const patch = typeof overrides === 'function' ? overrides(server.url) : overrides
      return mountRoute(server, spec.plugin, { ...route, ...patch })
    },
    async bootAdapter(script, overrides, clock) {
      spec.env.set(route.apiKeyEnv, spec.key)
      const server = await spec.startServer(script)
      const adapter = spec.adapterOf({ ...route, baseURL: server.url, ...overrides }, clock)
      return mountAdapter(server, route.provider, adapter)
    },
    request,
    run: (ctx, partial) => runCall(ctx, request(partial)),
    async teardown(h, options = {}) {
      spec.env.reset()
      await closeRoute(h, options)
    },
  }
}
