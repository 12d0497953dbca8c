import { Context } from 'cordis'

/** A root context whose `internal/error` and `internal/warning` reports are collected instead of printed. */
export function makeRoot(): { root: Context; errors: unknown[]; warnings: unknown[] } {
  const root = new Context()
  const errors: unknown[] = []
  const warnings: unknown[] = []
  root.on('internal/error', (error: unknown) => {
    errors.push(error)
  })
  root.on('internal/warning', (warning: unknown) => {
    warnings.push(warning)
  })
  return { root, errors, warnings }
}

/** Node 20 has no `Promise.withResolvers`. */
export function deferred<T = void>(): {
  promise: Promise<T>
  resolve: (value: T) => void
  reject: (e: unknown) => void
} {
  let resolve!: (value: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Mount a plugin under `ctx` and hand back the plugin's own context (how production code receives one). */
export function pluginCtx(ctx: Context): { ctx: Context; dispose: () => boolean } {
  let captured: Context | undefined
  const fork = ctx.plugin(function probe(c: Context) {
    captured = c
  })
  if (!captured) throw new Error('plugin did not apply synchronously')
  return { ctx: captured, dispose: fork.dispose }
}
