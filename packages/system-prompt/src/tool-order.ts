import type { ToolSchema } from '@bridle/llm'
import { TOOL_ORDER_REST } from './constants.js'

/** Compares two strings by UTF-16 code units (`<`/`>`), never by locale rules. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Checks a configured `toolOrder` before any plugin has loaded.
 *
 * Throws when an entry (the rest entry included) is listed twice, or when the `"<unlisted-tools>"` rest entry is
 * missing (so `[]` fails). Names are not checked against registered tools: that happens at every assembly.
 */
export function validateToolOrder(toolOrder: readonly string[]): void {
  if (!Array.isArray(toolOrder)) throw new TypeError('toolOrder must be an array of tool names')
  const seen = new Set<string>()
  for (const entry of toolOrder) {
    if (typeof entry !== 'string') throw new TypeError('toolOrder must be an array of tool names')
    if (seen.has(entry)) throw new Error(`toolOrder lists "${entry}" more than once`)
    seen.add(entry)
  }
  if (!seen.has(TOOL_ORDER_REST)) {
    throw new Error(`toolOrder must contain the "${TOOL_ORDER_REST}" rest entry (where unlisted tools are inserted)`)
  }
}

/** Stable sort by name in code-unit order; same-named tools keep their collection order. */
function canonical(tools: readonly ToolSchema[]): ToolSchema[] {
  return [...tools].sort((a, b) => compareCodeUnits(a.name, b.name))
}

/**
 * Puts the collected tool schemas of one assembly in their final order; returns a new array.
 *
 * - A tool named `"<unlisted-tools>"` is always rejected.
 * - Without `toolOrder`: canonical order (code units, stable), so registration order never shapes the request.
 * - With `toolOrder`: every non-rest entry must be in `knownNames` (else the error lists the known tools); a known
 *   name without a visible schema contributes nothing. Listed names emit every tool of that name in collection
 *   order; the rest entry emits all unlisted tools in canonical order.
 */
export function orderTools(
  tools: ToolSchema[],
  toolOrder: readonly string[] | undefined,
  knownNames: ReadonlySet<string>,
): ToolSchema[] {
  for (const tool of tools) {
    if (tool.name === TOOL_ORDER_REST) {
      throw new Error(
        `tool provider returned reserved tool name "${TOOL_ORDER_REST}" (reserved for toolOrder's rest entry)`,
      )
    }
  }
  if (toolOrder === undefined) return canonical(tools)
  validateToolOrder(toolOrder)

  const unknown = toolOrder.filter((entry) => entry !== TOOL_ORDER_REST && !knownNames.has(entry))
  if (unknown.length > 0) {
    const known = knownNames.size === 0 ? '(none)' : [...knownNames].sort(compareCodeUnits).join(', ')
    const quoted = unknown.map((name) => `"${name}"`).join(', ')
    throw new Error(
      `toolOrder lists unregistered ${unknown.length === 1 ? 'tool' : 'tools'} ${quoted}; ` + `known tools: ${known}`,
    )
  }

  const byName = new Map<string, ToolSchema[]>()
  const unlisted: ToolSchema[] = []
  const listed = new Set(toolOrder)
  for (const tool of tools) {
    if (!listed.has(tool.name)) unlisted.push(tool)
    else {
      const group = byName.get(tool.name)
      if (group) group.push(tool)
      else byName.set(tool.name, [tool])
    }
  }
  const out: ToolSchema[] = []
  for (const entry of toolOrder) {
    const part = entry === TOOL_ORDER_REST ? canonical(unlisted) : (byName.get(entry) ?? [])
    for (const tool of part) out.push(tool)
  }
  return out
}
