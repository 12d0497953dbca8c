import { Context } from 'cordis'
import { expect, it } from 'vitest'
import { HomeService, shutdown } from '../src/index.js'

class SlowStop extends HomeService {
  static log: string[] = []
  constructor(ctx: Context, name = 'slowStop') {
    super(ctx, name, undefined)
  }
  protected override async stop(): Promise<void> {
    SlowStop.log.push('stop started')
    await new Promise((resolve) => setTimeout(resolve, 20))
    await new Promise((resolve) => setImmediate(resolve))
    SlowStop.log.push('stop finished')
  }
}

class OtherSlowStop extends SlowStop {
  constructor(ctx: Context) {
    super(ctx, 'otherSlowStop')
  }
}

declare module 'cordis' {
  interface Context {
    slowStop: SlowStop
    otherSlowStop: OtherSlowStop
  }
}

it('shutdown(ctx) resolves only after every HomeService has finished its asynchronous stop()', async () => {
  SlowStop.log = []
  const ctx = new Context()
  ctx.plugin(SlowStop)
  ctx.plugin({
    name: 'nested',
    apply(child: Context) {
      child.plugin(OtherSlowStop)
    },
  })
  await shutdown(ctx)
  expect(SlowStop.log).toEqual(['stop started', 'stop started', 'stop finished', 'stop finished'])
})

it('ctx.scope.dispose() alone returns before the stop finished (why shutdown exists)', async () => {
  SlowStop.log = []
  const ctx = new Context()
  ctx.plugin(SlowStop)
  ctx.scope.dispose()
  await Promise.resolve()
  expect(SlowStop.log).toEqual(['stop started'])
  await ctx.lifecycle.flush()
  expect(SlowStop.log).toEqual(['stop started', 'stop finished'])
})
