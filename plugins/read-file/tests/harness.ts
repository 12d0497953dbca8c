import { callId } from '@bridle/llm'
import { ReadFile } from '@bridle/plugin-read-file'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry, type ToolAgent, type ToolExecutionResult } from '@bridle/tools'
import { Context } from 'cordis'
import { expect } from 'vitest'
import { type PageOptions, ReadFileError } from '../src/index.js'

/** A context with the system prompt, the tool registry and read_file (with `config`). */
export function load(config?: unknown) {
  const root = new Context()
  root.plugin(SystemPrompt)
  root.plugin(ToolRegistry)
  const fork = root.plugin(ReadFile, config as never) // bad configs on purpose
  return { root, fork }
}

/** The structural agent the tools package expects, working in `cwd`. */
export const agentAt = (cwd: string): ToolAgent => ({ session: { id: `s-${cwd}`, header: { cwd } } })

let n = 0
/** One read_file call through ctx.tools; a string is sent as the model's raw argument text. */
export const read = (root: Context, args: object | string, agent?: ToolAgent): Promise<ToolExecutionResult> =>
  root.tools.execute({
    callId: callId(`call-${++n}`),
    name: 'read_file',
    rawArguments: typeof args === 'string' ? args : JSON.stringify(args),
    signal: new AbortController().signal,
    ...(agent ? { agent } : {}),
  })

/** The text of a result's first block. */
export const text = (r: ToolExecutionResult) => (r.content[0] as { text: string }).text

/** `readPage` options with the plugin's defaults, for the display path `f.txt`; `over` replaces any of them. */
export const pageOptions = (over: Partial<PageOptions> = {}): PageOptions => ({
  offset: 1,
  limit: 2000,
  maxBytes: 64 * 1024,
  maxLineLength: 2000,
  displayPath: 'f.txt',
  ...over,
})

/** Awaits `p`, expecting it to reject with a `ReadFileError`, and returns that error. */
export async function refusal(p: Promise<unknown>): Promise<ReadFileError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  )
  expect(e).toBeInstanceOf(ReadFileError)
  return e as ReadFileError
}
