import { callId } from '@bridle/llm'
import { createScope, type Scope } from '@bridle/scope'
import { SystemPrompt, type SystemPromptConfigInput } from '@bridle/system-prompt'
import { ToolRegistry, type ToolAgent, type ToolExecutionInput } from '@bridle/tools'
import { Context } from 'cordis'

/** A root context with the system prompt and the tool registry loaded, counting `tools/change`. */
export function setup(systemPromptConfig?: SystemPromptConfigInput) {
  const root = new Context()
  let changes = 0
  root.on('tools/change', () => {
    changes++
  })
  root.plugin(SystemPrompt, systemPromptConfig)
  root.plugin(ToolRegistry)
  return { root, tools: root.tools, changes: () => changes }
}

/** Loads a throwaway plugin under `parent` and returns its context and disposer. */
export function plugin(parent: Context): { ctx: Context; dispose: () => boolean } {
  let captured: Context | undefined
  const fork = parent.plugin({
    inject: ['tools'],
    apply: (ctx: Context) => {
      captured = ctx
    },
  })
  if (!captured) throw new Error('plugin did not apply synchronously')
  return { ctx: captured, dispose: () => fork.dispose() }
}

/** An agent-like scope key with a session, and its scope. */
export function agent(root: Context, id = 'agent'): { agent: ToolAgent; scope: Scope } {
  const key: ToolAgent = { session: { id, header: { cwd: '/w' } } }
  return { agent: key, scope: createScope(root, key) }
}

let counter = 0
/** A model-style call input. */
export function call(name: string, rawArguments: string, extra: Partial<ToolExecutionInput> = {}): ToolExecutionInput {
  return {
    callId: callId(`c${++counter}`),
    name,
    rawArguments,
    signal: new AbortController().signal,
    ...extra,
  } as ToolExecutionInput
}

/** A direct-style call input. */
export function direct(name: string, args: unknown, extra: Partial<ToolExecutionInput> = {}): ToolExecutionInput {
  return {
    callId: callId(`d${++counter}`),
    name,
    arguments: args,
    signal: new AbortController().signal,
    ...extra,
  } as ToolExecutionInput
}

/** A manually resolved promise (Node 20 has no Promise.withResolvers). */
export function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
