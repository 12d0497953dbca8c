import { deepFreeze, formatIssuePath } from '@bridle/llm'
import { snapshotJsonValue } from '@bridle/session'
import { ToolArgsError } from './errors.js'
import type { CompiledTool } from './definition.js'

/** The outcome of reading and validating one call's arguments. */
export type ArgumentsOutcome = { ok: true; value: unknown } | { ok: false; error: Error }

/** Message of the error result for a direct caller whose `arguments` are not lossless JSON. */
const NON_JSON_ARGUMENTS = 'tool execution arguments must be losslessly JSON-serializable'

/**
 * Writes an issue path the way violations name it: segments joined with `.`, `(root)` when empty. The same rule as
 * config errors, so it is `@bridle/llm`'s `formatIssuePath` under the name this package has always exported.
 */
export const formatArgumentPath: (path: readonly PropertyKey[]) => string = formatIssuePath

/**
 * Parses a model's raw argument text. The exact string `''` means `{}` (models send it for argument-less tools);
 * anything else goes through `JSON.parse`, and a failure becomes `(root): not valid JSON (<SyntaxError message>)`.
 */
export function parseRawArguments(raw: string): ArgumentsOutcome {
  if (raw === '') return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(raw) as unknown }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    return { ok: false, error: new ToolArgsError([`(root): not valid JSON (${message})`]) }
  }
}

/**
 * Snapshots a direct caller's `arguments` as lossless JSON, so later edits by the caller cannot change what ran.
 * A value that is not lossless JSON (`undefined`, `NaN`, a class instance, a cycle…) ends the call with an error.
 */
export function snapshotDirectArguments(value: unknown): ArgumentsOutcome {
  let copy: unknown
  try {
    copy = snapshotJsonValue(value)
  } catch (e) {
    // Reading the value threw (a hostile getter): it cannot be snapshotted either, so the documented message applies.
    return { ok: false, error: new Error(NON_JSON_ARGUMENTS, { cause: e }) }
  }
  if (copy === undefined) return { ok: false, error: new Error(NON_JSON_ARGUMENTS) }
  return { ok: true, value: copy }
}

function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Validates parsed arguments against a tool. The root must be a JSON object. A zod tool then runs `safeParse` and
 * hands over `data` (defaults applied); each zod issue becomes `<path>: <zod message>`. A raw-schema tool gets the
 * object unchanged (deeper validation is its own job). The accepted value is deep-frozen.
 */
export function validateArguments(tool: CompiledTool, value: unknown): ArgumentsOutcome {
  if (!isPlainJsonObject(value)) return { ok: false, error: new ToolArgsError(['(root): expected a JSON object']) }
  if (tool.zod === undefined) return { ok: true, value: deepFreeze(value) }
  const parsed = tool.zod.safeParse(value)
  if (!parsed.success) {
    const violations = parsed.error.issues.map((issue) => `${formatArgumentPath(issue.path)}: ${issue.message}`)
    return { ok: false, error: new ToolArgsError(violations.length > 0 ? violations : ['(root): invalid value']) }
  }
  return { ok: true, value: deepFreeze(parsed.data as object) }
}
