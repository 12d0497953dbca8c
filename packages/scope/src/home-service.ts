import { type Context, Service } from 'cordis'

/**
 * A cordis service that keeps the context it was built in. Reached as `ctx.<name>`, a service is a per-caller view
 * whose `this.ctx` is the caller's context: the right owner for what a caller registers, the wrong place for the
 * service's own events and dependencies, which go through `home`. A subclass parses its config in the `super` call,
 * so a bad config throws before the service is provided.
 *
 * Its asynchronous `stop()` runs as a task of its plugin's scope: cordis drops the promise of a disposer, so without
 * this nothing could wait for a backend's final flush; `shutdown(ctx)` (and `ctx.lifecycle.flush()`) now does.
 */
export abstract class HomeService<C = undefined> extends Service<C> {
  declare readonly config: C
  /** The context the service was built in (its plugin's). */
  protected readonly home: Context

  constructor(ctx: Context, name: string, config: C) {
    super(ctx, name, true)
    this.config = config
    this.home = ctx
    const stop = this.stop
    Object.defineProperty(this, 'stop', {
      configurable: true,
      value: (): Promise<void> => {
        let done!: Promise<void>
        ctx.scope.ensure(() => (done = Promise.resolve(stop.call(this))))
        return done
      },
    })
  }
}
