import type {} from '@bridle/tools'
import { configuredPlugin } from '@bridle/llm'
import type { Context } from 'cordis'
import { Config, parseServerConfig, type NamedServerConfig } from './config.js'
import { ServerConnection } from './connection.js'

/**
 * One MCP server as its own plugin: `ctx.plugin(McpServer, { name, command, args… })` or `{ name, url, headers }`.
 * Its tools are registered through this fork's context, so disposing the fork removes exactly its tools (and, through
 * the registry, fires `system-prompt/change` once per tool); disposal also closes the client and ends the child.
 * `Mcp` loads one of these per configured server.
 *
 * The fork stays loading (cordis) until the first connection attempt settles, and its close after disposal is a
 * task too, so a host that awaits `ctx.lifecycle.flush()` after loading or unloading plugins — the `bridle` CLI
 * does — builds its first request with the tools, and knows a disposed server's child has exited.
 */
export const McpServer = {
  name: '@bridle/plugin-mcp/server',
  inject: ['tools'],
  reusable: true,
  Config: parseServerConfig,
  apply(ctx: Context, config: NamedServerConfig) {
    const connection = new ServerConnection(ctx, parseServerConfig(config))
    ctx.effect(() => {
      connection.start()
      // closing is asynchronous (the child has to exit); as a task of this fork it is what `ctx.lifecycle.flush()`
      // waits for, so a host that flushes after a reload knows the old server is gone
      return () => ctx.scope.ensure(() => connection.close())
    })
    return connection.firstAttempt
  },
}

/**
 * `@bridle/plugin-mcp`: tools from Model Context Protocol servers. Loads one `McpServer` fork per entry of
 * `servers` (in code-unit order of their names; the order never reaches the request, which sorts tools by name).
 * Disposing it disposes every fork: all tools go, every client closes, no child process is left.
 */
export class Mcp extends configuredPlugin(Config) {
  static inject = ['tools']

  constructor(ctx: Context, config?: unknown) {
    super(ctx, config)
    for (const name of Object.keys(this.config.servers).sort()) {
      ctx.plugin(McpServer, { ...this.config.servers[name]!, name })
    }
  }
}
