import type { Context } from 'cordis'

/**
 * Disposes `ctx` (an app's root context, or any plugin's) and resolves once every asynchronous teardown it started has
 * finished: each `HomeService`'s `stop()` — the session backends' final flush and lease release among them — and any
 * other task a disposer handed to `ctx.scope.ensure`. `ctx.scope.dispose()` alone returns at once (cordis does not
 * wait for disposers), so a process that exits right after it can lose what was still being written. Rejects with
 * nothing: a teardown that fails is reported through cordis's `internal/error`, as a failing disposer always is.
 */
export async function shutdown(ctx: Context): Promise<void> {
  ctx.scope.dispose()
  await ctx.lifecycle.flush()
}
