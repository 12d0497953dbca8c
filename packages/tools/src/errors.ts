import { HarnessError } from '@bridle/llm'

/** Code of the result a call gets when the turn was cancelled after its body succeeded. */
export const TOOL_ABORTED = 'ABORTED'
/** Code of the result a call gets when it was cancelled before its body started. */
export const TOOL_ABORTED_BEFORE_DISPATCH = 'ABORTED_BEFORE_DISPATCH'

/** The model called a tool its agent cannot see (never registered, disposed, or registered in another scope). */
export class ToolNotFoundError extends HarnessError {
  readonly toolName: string
  constructor(name: string) {
    super(`unknown tool "${name}"`, 'UNKNOWN_TOOL')
    this.name = 'ToolNotFoundError'
    this.toolName = name
  }
}

/**
 * The arguments of a call did not parse or validate. `violations` are `<path>: <message>` strings; the message joins
 * them with `'; '` so the model learns every path that was wrong and what was expected there.
 */
export class ToolArgsError extends HarnessError {
  readonly violations: readonly string[]
  constructor(violations: readonly string[]) {
    super(`invalid arguments: ${violations.join('; ')}`, 'INVALID_ARGS')
    this.name = 'ToolArgsError'
    this.violations = Object.freeze([...violations])
  }
}

/**
 * The message of any thrown value, as the canonical error results need it: an `Error`'s message, an object's
 * string `message`, else `String(e)`; `<unprintable thrown value>` when even reading it throws.
 */
export function thrownMessage(e: unknown): string {
  try {
    if (e instanceof Error) return e.message
    if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string') {
      return (e as { message: string }).message
    }
    return String(e)
  } catch {
    return '<unprintable thrown value>'
  }
}

/** `{name, code}` for a `HarnessError`, else `undefined` (only coded errors carry durable error info). */
export function harnessInfo(e: unknown): { name: string; code: string } | undefined {
  try {
    if (e instanceof HarnessError && typeof e.code === 'string') return { name: String(e.name), code: e.code }
  } catch {
    // a hostile getter: no info
  }
  return undefined
}
