import type { Context } from 'cordis'
import { assertScopeKey, type ScopeKey } from './key.js'
import { installScopeInjectCheck, markTransparent } from './inject-check.js'
import { bindScopeParent } from './parent.js'
import { tagContext } from './tag.js'

/** A mounted scope: a fresh plugin fork whose context is tagged with `key`. */
export interface Scope {
  readonly key: ScopeKey
  /** The fork's context, tagged with `key`. Everything registered through it lives on the fork. */
  readonly ctx: Context
  /** Exactly upstream `ForkScope.dispose`: `true` the first time, `false` afterwards. */
  rawDispose(): boolean
  /**
   * Memoised teardown: repeat and racing callers share one promise. Disposes the fork synchronously on the
   * first call (unless already disposed); does not wait for asynchronous disposer tails, which upstream
   * does not expose.
   */
  dispose(): Promise<void>
}

export interface CreateScopeOptions {
  /** Bind `key` to this parent key (via `bindScopeParent`) after mounting. */
  parent?: ScopeKey
}

/**
 * Mount a fresh no-op plugin under `ctx` and return its context tagged with `key`.
 *
 * Throws a `TypeError` for a non-object key; upstream's `INACTIVE_EFFECT` when `ctx` is disposed (nothing
 * mounted or bound); and the binding error when `options.parent` cannot be bound, after disposing the fork
 * it just mounted. The scope is usable synchronously, and disposing `ctx`'s fiber disposes it too.
 */
export function createScope(ctx: Context, key: ScopeKey, options: CreateScopeOptions = {}): Scope {
  assertScopeKey(key)
  // A new function per call: upstream warns `duplicate plugin detected` when one function is mounted twice.
  const plugin = function bridleScope(): void {}
  // Reads through the scope's ctx are checked as reads through `ctx` (see inject-check.ts).
  markTransparent(plugin)
  installScopeInjectCheck(ctx)
  const fork = ctx.plugin(plugin)
  if (options.parent !== undefined) {
    try {
      bindScopeParent(key, options.parent)
    } catch (error) {
      fork.dispose()
      throw error
    }
  }
  const tagged = tagContext(fork.ctx, key)
  let disposing: Promise<void> | undefined
  return {
    key,
    ctx: tagged,
    rawDispose: fork.dispose,
    dispose(): Promise<void> {
      if (disposing) return disposing
      try {
        if (fork.uid !== null) fork.dispose()
        disposing = Promise.resolve()
      } catch (error) {
        disposing = Promise.reject(error)
      }
      return disposing
    },
  }
}
