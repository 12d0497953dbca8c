import { describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import type { DuplicateNameError } from '../src/index.js'
import { setup } from './helpers.js'

/** Loads `plugin` (which injects systemPrompt) under `root`. */
function load(root: Context, plugin: { name: string; inject: string[]; apply: (ctx: Context) => void }) {
  root.plugin(plugin)
}

describe('who registered a name', () => {
  it('a duplicate carries the plugin that registered the name first; ownerOf names the owner of any entry', () => {
    const { root, sp } = setup()
    const first = {
      name: 'notes',
      inject: ['systemPrompt'],
      apply: (ctx: Context) => void ctx.systemPrompt.section({ name: 'n', order: 1, text: 'a' }),
    }
    load(root, first)
    let thrown: DuplicateNameError | undefined
    load(root, {
      name: 'dup',
      inject: ['systemPrompt'],
      apply: (ctx) => {
        try {
          ctx.systemPrompt.section({ name: 'n', order: 1, text: 'b' })
        } catch (error) {
          thrown = error as DuplicateNameError
        }
      },
    })
    expect(thrown?.message).toBe(
      'prompt section "n" is already registered (for a per-agent override, register through that agent\'s `agent.ctx` instead)',
    )
    expect(thrown?.registeredFirstBy).toEqual({ name: 'notes', plugin: first })
    expect(sp.ownerOf('section', 'n')?.plugin).toBe(first)
    expect(sp.ownerOf('section', 'nope')).toBeUndefined()
  })

  it('forgets an owner once its entry is disposed', () => {
    const { root, sp } = setup()
    const fork = root.plugin({
      name: 'vars',
      inject: ['systemPrompt'],
      apply: (ctx: Context) => void ctx.systemPrompt.variable('v', () => 'x'),
    })
    expect(sp.ownerOf('variable', 'v')?.name).toBe('vars')
    fork.dispose()
    expect(sp.ownerOf('variable', 'v')).toBeUndefined()
  })
})
