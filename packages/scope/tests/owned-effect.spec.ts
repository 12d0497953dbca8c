import { describe, expect, it } from 'vitest'
import { ownedEffect } from '@bridle/scope'
import { makeRoot, pluginCtx } from './helpers.js'

const disposablesOf = (ctx: { scope: unknown }) => (ctx.scope as { disposables: unknown[] }).disposables

describe('ownedEffect', () => {
  it('behaves like ctx.effect when the owner stays: one disposer, run once on the owner’s disposal', () => {
    const { root } = makeRoot()
    const owner = pluginCtx(root)
    const before = disposablesOf(owner.ctx).length
    const log: string[] = []
    const dispose = ownedEffect(owner.ctx, () => {
      log.push('run')
      return () => void log.push('undo')
    })
    expect(disposablesOf(owner.ctx)).toHaveLength(before + 1) // the sentinel is gone again
    owner.dispose()
    dispose()
    expect(log).toEqual(['run', 'undo'])
  })

  it('runs the disposer as soon as the callback returns when the owner was disposed inside it', () => {
    const { root } = makeRoot()
    const owner = pluginCtx(root)
    const log: string[] = []
    const dispose = ownedEffect(owner.ctx, () => {
      log.push('run')
      owner.dispose() // e.g. a listener the callback notified reloads the owning plugin
      log.push('owner disposed')
      return () => void log.push('undo')
    })
    expect(log).toEqual(['run', 'owner disposed', 'undo'])
    expect(disposablesOf(owner.ctx)).toHaveLength(0)
    dispose() // idempotent
    expect(log).toHaveLength(3)
  })

  it('plain ctx.effect loses the disposer in the same situation (why this helper exists)', () => {
    const { root } = makeRoot()
    const owner = pluginCtx(root)
    const log: string[] = []
    owner.ctx.effect(() => {
      owner.dispose()
      return () => void log.push('undo')
    })
    expect(log).toEqual([])
  })

  it('a throwing callback leaves nothing behind and the error propagates', () => {
    const { root } = makeRoot()
    const owner = pluginCtx(root)
    const before = disposablesOf(owner.ctx).length
    expect(() =>
      ownedEffect(owner.ctx, () => {
        throw new Error('refused')
      }),
    ).toThrow('refused')
    expect(disposablesOf(owner.ctx)).toHaveLength(before)
  })

  it('an inactive owner throws upstream INACTIVE_EFFECT before the callback runs', () => {
    const { root } = makeRoot()
    const owner = pluginCtx(root)
    owner.dispose()
    let ran = false
    expect(() =>
      ownedEffect(owner.ctx, () => {
        ran = true
        return () => {}
      }),
    ).toThrow('cannot create effect on inactive context')
    expect(ran).toBe(false)
  })
})
