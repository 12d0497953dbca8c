import { createHash } from 'node:crypto'

/** What providers accept as a function name, and what `ctx.tools.register` enforces. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const MAX = 64
const SEPARATOR = '__'
const HASH_LENGTH = 8

/**
 * The Bridle tool name of MCP tool `tool` on server `server`: `<server>__<tool>`. A pure function of the two names,
 * so the same tool always gets the same name, whatever else the server lists and in whatever order.
 *
 * When the joined name already fits (`[a-zA-Z0-9_-]`, at most 64 characters) it is used as is. Otherwise every other
 * character becomes `_`, the name is cut to leave room, and `_` plus 8 hex digits of SHA-256 over the exact original
 * names is appended, so two tools that sanitize alike (`a.b` and `a_b`) still get different, stable names. Server
 * names are at most 32 characters without `__`, so the `<server>__` prefix always survives the cut.
 */
export function bridleToolName(server: string, tool: string): string {
  const joined = `${server}${SEPARATOR}${tool}`
  if (TOOL_NAME.test(joined)) return joined
  const hash = createHash('sha256').update(server).update('\0').update(tool).digest('hex').slice(0, HASH_LENGTH)
  const cleaned = joined.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX - HASH_LENGTH - 1)
  return `${cleaned}_${hash}`
}
