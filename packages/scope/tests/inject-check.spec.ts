import { type Context, Service } from 'cordis'
import { describe, expect, it } from 'vitest'
import { takeLogLines } from '../../../tests/support/logs.js'
import { createScope } from '../src/index.js'
import { makeRoot, pluginCtx } from './helpers.js'

const WARNING = 'property probe is not registered, declare it as `inject` to suppress this warning'

class Probe extends Service {
  constructor(ctx: Context) {
    super(ctx, 'probe', true)
  }
}

/** Reads `probe` the way plugin code does (through the ctx proxy) and returns the warnings it produced. */
function read(ctx: Context, warnings: unknown[]): string[] {
  const before = warnings.length
  void (ctx as unknown as { probe: unknown }).probe
  return warnings.slice(before).map((warning) => (warning as Error).message)
}

describe('a scope is transparent to inject checks', () => {
  it('a read through a scope created on the app does not warn, as a read on the app does not', () => {
    const { root, warnings } = makeRoot()
    root.plugin(Probe)
    expect(read(root, warnings)).toEqual([])
    const scope = createScope(root, {})
    expect(read(scope.ctx, warnings)).toEqual([])
    // nested scopes, bound or not, are just as transparent
    const child = createScope(scope.ctx, {}, { parent: scope.key })
    expect(read(child.ctx, warnings)).toEqual([])
    expect(takeLogLines()).toEqual([])
  })

  it('a scope under a plugin that injected the service reads it without a warning (upstream walks the chain)', () => {
    const { root, warnings } = makeRoot()
    root.plugin(Probe)
    let host: Context | undefined
    root.plugin({ inject: ['probe'], apply: (ctx: Context) => void (host = ctx) })
    expect(read(createScope(host!, {}).ctx, warnings)).toEqual([])
  })

  it('still warns for a plugin that did not declare it: under a scope, or with a scope above it', () => {
    const { root, warnings } = makeRoot()
    root.plugin(Probe)
    const scope = createScope(root, {})
    expect(read(pluginCtx(scope.ctx).ctx, warnings)).toEqual([WARNING])
    expect(read(createScope(pluginCtx(root).ctx, {}).ctx, warnings)).toEqual([WARNING])
    expect(takeLogLines()).toEqual([`warn app: Error: ${WARNING}`, `warn app: Error: ${WARNING}`])
  })

  it('each app gets one handler, and apps do not affect each other', () => {
    const first = makeRoot()
    const second = makeRoot()
    first.root.plugin(Probe)
    second.root.plugin(Probe)
    for (let i = 0; i < 3; i++) createScope(first.root, {})
    const handlers = (root: Context) => root.lifecycle._hooks['internal/inject']?.length ?? 0
    expect(handlers(first.root)).toBe(handlers(second.root) + 1)
    expect(read(pluginCtx(second.root).ctx, second.warnings)).toEqual([WARNING])
    expect(takeLogLines()).toEqual([`warn app: Error: ${WARNING}`])
  })
})
