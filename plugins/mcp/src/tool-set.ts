import type { ToolReturn, ToolRunContext } from '@bridle/tools'
import type { Context } from 'cordis'
import type { ListedTool } from './listing.js'

/** What one application of a listing changed, by Bridle tool name (each list in code-unit order). */
export interface ToolDiff {
  readonly added: readonly string[]
  readonly removed: readonly string[]
  readonly changed: readonly string[]
  /** Tools the registry refused (for example a name another plugin already registered), with its error. */
  readonly refused: readonly { readonly name: string; readonly error: unknown }[]
}

/** Runs one MCP tool for a Bridle call. */
export type CallMcpTool = (tool: ListedTool, args: Record<string, unknown>, exec: ToolRunContext) => Promise<ToolReturn>

/**
 * The Bridle tools one server currently contributes, each registered through the server's own context as its own
 * effect. `apply` moves from the registered set to a new listing by touching only the difference, so a tool that
 * did not change keeps its registration and every applied difference is one registration or one disposal.
 */
export class ToolSet {
  private readonly registered = new Map<string, { tool: ListedTool; dispose: () => void }>()

  constructor(
    private readonly ctx: Context,
    private readonly call: CallMcpTool,
  ) {}

  /** Bridle names of the registered tools, in code-unit order. */
  names(): string[] {
    return [...this.registered.keys()].sort()
  }

  /**
   * Registers what is new, disposes what is gone, and re-registers what changed (its old effect is disposed, then
   * the new one applied: two effects). Removals go first, so a changed tool is never registered twice. All of it
   * runs synchronously, so no assembly ever sees a half-applied listing.
   */
  apply(next: readonly ListedTool[]): ToolDiff {
    const wanted = new Map(next.map((tool) => [tool.name, tool]))
    const removed: string[] = []
    const changed: string[] = []
    const added: string[] = []
    for (const name of this.names()) {
      const tool = wanted.get(name)
      if (tool === undefined) removed.push(name)
      else if (tool.fingerprint !== this.registered.get(name)!.tool.fingerprint) changed.push(name)
    }
    for (const name of [...wanted.keys()].sort()) if (!this.registered.has(name)) added.push(name)
    for (const name of [...removed, ...changed]) this.unregister(name)
    const refused: { name: string; error: unknown }[] = []
    for (const name of [...changed, ...added].sort()) {
      const error = this.register(wanted.get(name)!)
      if (error !== undefined) refused.push({ name, error })
    }
    const ok = (name: string) => !refused.some((r) => r.name === name)
    // a changed tool whose new version was refused is gone: report it as removed
    const lost = changed.filter((name) => !ok(name))
    return { added: added.filter(ok), removed: [...removed, ...lost].sort(), changed: changed.filter(ok), refused }
  }

  /** Disposes every registered tool (one disposal each); returns their names. */
  clear(): string[] {
    const names = this.names()
    for (const name of names) this.unregister(name)
    return names
  }

  private unregister(name: string): void {
    const entry = this.registered.get(name)
    if (entry === undefined) return
    this.registered.delete(name)
    entry.dispose()
  }

  /** Registers one tool; returns the registry's error instead of throwing, so one refusal spoils nothing else. */
  private register(tool: ListedTool): unknown {
    const call = this.call
    try {
      const dispose = this.ctx.tools.register({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        concurrencySafe: tool.readOnly,
        execute: (args: Record<string, unknown>, exec: ToolRunContext) => call(tool, args, exec),
      })
      this.registered.set(tool.name, { tool, dispose })
      return undefined
    } catch (error) {
      return error
    }
  }
}
