import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { z } from 'zod'
import type { ServerConfig } from './config.js'
import { bridleToolName } from './names.js'
import { isRecord } from '@bridle/llm'

/** A tool exactly as the server listed it: the object is the parsed JSON, untouched (key order included). */
export type RawTool = Record<string, unknown>

/** One page of `tools/list`. Tools are taken as raw objects so their schemas reach the model byte for byte. */
const ListPageSchema = z.looseObject({
  tools: z.array(z.custom<RawTool>((value) => typeof value === 'object' && value !== null && !Array.isArray(value))),
  nextCursor: z.string().optional(),
})

/** Most pages one listing follows; a server that keeps handing out cursors past this is cut off. */
const MAX_PAGES = 1000

/**
 * Lists every tool of a server, following `nextCursor` pages. The SDK's own `listTools` re-parses each tool with
 * zod, which reorders the keys of every `inputSchema`; this asks for the raw objects instead, so what the server
 * sent is what the model sees. Each page request has `timeoutMs`.
 */
export async function listAllTools(client: Client, timeoutMs: number, signal?: AbortSignal): Promise<RawTool[]> {
  const tools: RawTool[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListPageSchema,
      { timeout: timeoutMs, ...(signal ? { signal } : {}) },
    )
    tools.push(...result.tools)
    cursor = result.nextCursor
    if (cursor === undefined || seen.has(cursor)) return tools
    seen.add(cursor)
  }
  return tools
}

/** A listed tool as this plugin registers it. */
export interface ListedTool {
  /** The server's own name (what `tools/call` is sent with). */
  readonly mcpName: string
  /** The Bridle name, `<server>__<tool>` (sanitized). */
  readonly name: string
  readonly description: string
  /** The server's `inputSchema` object, untouched. */
  readonly parameters: Record<string, unknown>
  /** `annotations.readOnlyHint === true`: calls may run in parallel with other safe calls. */
  readonly readOnly: boolean
  /** Everything that reaches the model or the registration, as one string: equal fingerprints, same tool. */
  readonly fingerprint: string
}

/** A tool the server listed that is not registered, and why. */
export interface SkippedTool {
  readonly mcpName: string
  readonly reason: string
}

/**
 * Turns a server's raw listing into the tools to register, in code-unit order of their Bridle names. Leaves out
 * (and reports) tools without a usable name or an object `inputSchema`, tools that need MCP task-based execution
 * (a plain `tools/call` cannot run them), tools the row's `include`/`exclude` filter out (not reported), and a
 * tool whose Bridle name another tool of this server already has. That last rule looks at the tools in code-unit
 * order of their MCP names, so which one wins never depends on the order the server listed them in.
 */
export function toListedTools(
  server: string,
  config: Pick<ServerConfig, 'include' | 'exclude'>,
  raw: readonly RawTool[],
) {
  const tools = new Map<string, ListedTool>()
  const skipped: SkippedTool[] = []
  const keyed = raw.map((tool) => ({ tool, key: `${String(tool.name)}\u0000${JSON.stringify(tool)}` }))
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  for (const { tool } of keyed) {
    const mcpName = tool.name
    if (typeof mcpName !== 'string' || mcpName === '') {
      skipped.push({ mcpName: String(mcpName), reason: 'it has no name' })
      continue
    }
    if (config.include !== undefined && !config.include.includes(mcpName)) continue
    if (config.exclude.includes(mcpName)) continue
    const schema = tool.inputSchema
    if (!isRecord(schema) || schema.type !== 'object') {
      skipped.push({ mcpName, reason: 'its inputSchema is not a JSON Schema object with type "object"' })
      continue
    }
    const execution = tool.execution
    if (isRecord(execution) && execution.taskSupport === 'required') {
      skipped.push({ mcpName, reason: 'it requires task-based execution, which this client does not use' })
      continue
    }
    const name = bridleToolName(server, mcpName)
    const existing = tools.get(name)
    if (existing !== undefined) {
      skipped.push({ mcpName, reason: `its name "${name}" is already taken by "${existing.mcpName}"` })
      continue
    }
    const description =
      typeof tool.description === 'string' ? tool.description : typeof tool.title === 'string' ? tool.title : ''
    const annotations = tool.annotations
    const readOnly = isRecord(annotations) && annotations.readOnlyHint === true
    const fingerprint = JSON.stringify([mcpName, description, schema, readOnly])
    tools.set(name, { mcpName, name, description, parameters: schema, readOnly, fingerprint })
  }
  return { tools: [...tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), skipped }
}
