import { configParser, intInRange, nullAsAbsent, parseConfig } from '@bridle/llm'
import { z } from 'zod'

/** The name `ConfigError`s and warnings use for this plugin. */
export const PLUGIN_NAME = '@bridle/plugin-mcp'

/**
 * A server name: letters, digits and `-`, with single `_` between them. No `__` and no leading or trailing `_`, so
 * the first `__` of a tool name `<server>__<tool>` always ends the server part; at most 32 characters, so a tool
 * name cut to 64 characters always keeps it.
 */
export const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/
const SERVER_NAME_MAX = 32

const ReconnectSchema = z.strictObject({
  /** Delay before the first reconnect attempt. */
  initialDelayMs: intInRange(1, 3_600_000, 500),
  /** Each further attempt waits `factor` times longer, up to `maxDelayMs`. */
  factor: nullAsAbsent(z.number().min(1).max(10).default(2)),
  maxDelayMs: intInRange(1, 3_600_000, 30_000),
  /** Attempts after a fault before the server is given up (its tools stay away); absent → keep trying. */
  maxAttempts: nullAsAbsent(z.number().int().min(0).optional()),
})

/** Fields every server row shares, whatever its transport. */
const common = {
  /** Only these MCP tool names (the server's own names) are registered. */
  include: nullAsAbsent(z.array(z.string().min(1)).optional()),
  /** These MCP tool names are never registered. */
  exclude: nullAsAbsent(z.array(z.string().min(1)).default([])),
  /** Limit for `initialize` and for each page of the first tool listing; slower counts as a failed start. */
  startupTimeoutMs: intInRange(1, 600_000, 30_000),
  /** Limit for one tool call; progress notifications from the server restart it. */
  callTimeoutMs: intInRange(1, 86_400_000, 60_000),
  /** Limit for a ping (after a call timed out, and for the periodic health check). */
  pingTimeoutMs: intInRange(1, 600_000, 10_000),
  /** Ping this often while connected; 0 turns it off. Absent → 30 s for Streamable HTTP, off for stdio. */
  pingIntervalMs: nullAsAbsent(z.number().int().min(0).max(86_400_000).optional()),
  /**
   * How image results reach the model: `text` (default) says what the image was in a text block, which any model
   * can read; `attach` sends an `image` block whose bytes are kept durably in the result's `meta`.
   */
  images: nullAsAbsent(z.enum(['text', 'attach']).default('text')),
  reconnect: nullAsAbsent(ReconnectSchema.default(ReconnectSchema.parse({}))),
}

/** A server run as a child process that speaks MCP over its stdin and stdout. */
export const StdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: nullAsAbsent(z.array(z.string()).default([])),
  /** Added to the few variables the child inherits (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  env: nullAsAbsent(z.record(z.string(), z.string()).default({})),
  /** Working directory of the child; a relative path is resolved against the process cwd. */
  cwd: nullAsAbsent(z.string().min(1).optional()),
  ...common,
})

/** A server reached over Streamable HTTP. */
export const HttpServerSchema = z.strictObject({
  url: z
    .string()
    .min(1)
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
      message: 'url must be an http:// or https:// URL',
    }),
  /** Sent with every request (for example `Authorization`). */
  headers: nullAsAbsent(z.record(z.string(), z.string()).default({})),
  ...common,
})

export type StdioServerConfig = z.output<typeof StdioServerSchema>
export type HttpServerConfig = z.output<typeof HttpServerSchema>
export type ServerConfig = StdioServerConfig | HttpServerConfig

/**
 * One server row: `{ url, headers }` is Streamable HTTP, anything else is stdio. Picking the shape by the `url` key
 * (rather than a zod union) keeps the errors about the fields the user actually wrote.
 */
export const ServerSchema = z.unknown().transform((raw, ctx): ServerConfig => {
  const isHttp = typeof raw === 'object' && raw !== null && 'url' in raw
  const parsed = (isHttp ? HttpServerSchema : StdioServerSchema).safeParse(raw)
  if (parsed.success) return parsed.data
  for (const issue of parsed.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] })
  return z.NEVER
})

/** A server name as a zod schema (the `servers` keys, and `name` of an `McpServer` row). */
export const ServerNameSchema = z
  .string({ message: 'expected a server name string' })
  .max(SERVER_NAME_MAX, { message: `server names have at most ${SERVER_NAME_MAX} characters` })
  .regex(SERVER_NAME, { message: 'server names use letters, digits, "-" and single "_" between them' })

/** The whole plugin: named servers. */
export const ConfigSchema = z.strictObject({
  servers: z.unknown().transform((raw, ctx): Record<string, ServerConfig> => {
    // by hand rather than z.record: a bad key would only say "Invalid key in record", and a bad row would hide
    // the key errors of the others
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected an object of named servers ({ <name>: { command… } | { url… } })',
      })
      return z.NEVER
    }
    const servers: Record<string, ServerConfig> = {}
    let ok = true
    for (const [name, row] of Object.entries(raw)) {
      const named = ServerNameSchema.safeParse(name)
      const server = ServerSchema.safeParse(row)
      for (const issue of named.error?.issues ?? [])
        ctx.addIssue({ code: 'custom', message: issue.message, path: [name] })
      for (const issue of server.error?.issues ?? [])
        ctx.addIssue({ code: 'custom', message: issue.message, path: [name, ...issue.path] as PropertyKey[] })
      if (named.success && server.success) servers[name] = server.data
      else ok = false
    }
    return ok ? servers : z.NEVER
  }),
})

export type McpConfig = z.output<typeof ConfigSchema>

/** Parses the plugin config; throws `ConfigError` naming `@bridle/plugin-mcp` and each failing field. Idempotent. */
export const Config = configParser((raw: unknown): McpConfig => parseConfig(PLUGIN_NAME, ConfigSchema, raw))

export type NamedServerConfig = ServerConfig & { name: string }

/** One server row plus its name: what the per-server plugin `McpServer` takes. */
export const NamedServerSchema = z.unknown().transform((raw, ctx): NamedServerConfig => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    ctx.addIssue({ code: 'custom', message: 'expected an object { name, command… } or { name, url… }' })
    return z.NEVER
  }
  const { name, ...rest } = raw as Record<string, unknown>
  const named = ServerNameSchema.safeParse(name)
  const server = ServerSchema.safeParse(rest)
  for (const issue of named.error?.issues ?? [])
    ctx.addIssue({ code: 'custom', message: issue.message, path: ['name'] })
  for (const issue of server.error?.issues ?? [])
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] })
  if (!named.success || !server.success) return z.NEVER
  return { name: named.data, ...server.data }
})

/** Parses one named server row (`{ name, command… }` or `{ name, url… }`); throws `ConfigError`. Idempotent. */
export const parseServerConfig = configParser(
  (raw: unknown): NamedServerConfig => parseConfig(PLUGIN_NAME, NamedServerSchema, raw),
)

/** True for a Streamable HTTP row. */
export const isHttp = (server: ServerConfig): server is HttpServerConfig => 'url' in server
