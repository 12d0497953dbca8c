import { createScope, type Scope } from '@bridle/scope'
import { Context } from 'cordis'
import { SystemPrompt, type SystemPromptConfigInput } from '../src/index.js'

/** A root context with the service loaded (untagged), plus a counter of `system-prompt/change` events. */
export function setup(config?: SystemPromptConfigInput): { root: Context; sp: SystemPrompt; changes: () => number } {
  const root = new Context()
  let count = 0
  root.on('system-prompt/change', () => {
    count++
  })
  root.plugin(SystemPrompt, config)
  return { root, sp: root.systemPrompt, changes: () => count }
}

/** Loads a throwaway plugin under `parent` and returns its context and fork. */
export function plugin(parent: Context): { ctx: Context; dispose: () => boolean } {
  let captured: Context | undefined
  const fork = parent.plugin({
    inject: ['systemPrompt'],
    apply: (ctx: Context) => {
      captured = ctx
    },
  })
  if (!captured) throw new Error('plugin did not apply synchronously')
  return { ctx: captured, dispose: () => fork.dispose() }
}

/** A scope under `root` for a fresh key (optionally a child of `parent`). */
export function scope(root: Context, options?: { parent?: object }): Scope & { key: object } {
  const key = {}
  return createScope(root, key, options) as Scope & { key: object }
}

/** A minimal tool schema. */
export function tool(name: string, parameters: Record<string, unknown> = { type: 'object' }) {
  return { name, description: `the ${name} tool`, parameters }
}
