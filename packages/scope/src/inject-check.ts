import type { Context } from 'cordis'

/**
 * A service read through a scope's ctx is checked as a read through the ctx the scope was created on.
 *
 * Upstream warns `property X is not registered, declare it as \`inject\`` when no plugin on the fork chain of the
 * reading ctx declared X, walking up to the app. A read on the app's own ctx never warns, but the no-op plugin a
 * scope mounts is a plugin, so every service read through a scope created on the app warned. The plugins
 * `createScope` mounts are marked here, and one `internal/inject` handler per app lets a read through when only
 * scopes stand between the reading ctx and the app. A plugin anywhere in between still needs its own `inject`.
 */
const TRANSPARENT = Symbol('bridle.scope.transparent')

const installed = new WeakSet<object>()

interface ForkChain {
  runtime: { plugin: unknown }
  parent: { scope: ForkChain }
}

/** Marks `plugin` (a function `createScope` mounts) as adding no requirements of its own. */
export function markTransparent(plugin: object): void {
  Object.defineProperty(plugin, TRANSPARENT, { value: true })
}

function isTransparent(plugin: unknown): boolean {
  return typeof plugin === 'function' && (plugin as unknown as Record<symbol, unknown>)[TRANSPARENT] === true
}

/** Installs the app-wide handler once per app (idempotent). */
export function installScopeInjectCheck(ctx: Context): void {
  const root = ((ctx as { root?: Context }).root ?? ctx) as Context
  if (installed.has(root)) return
  installed.add(root)
  // Upstream's own handler runs first and answers `true` for a declared service, so this one only sees reads that
  // would warn. Returning nothing leaves the decision (and the warning) to upstream.
  root.on(
    'internal/inject',
    function (this: Context) {
      let scope = (this as unknown as { scope: ForkChain }).scope
      while (isTransparent(scope.runtime.plugin)) scope = scope.parent.scope
      return scope.runtime.plugin ? undefined : true
    },
    { global: true },
  )
}
