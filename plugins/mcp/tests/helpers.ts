import { callId } from '@bridle/llm'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry, type ToolExecutionResult } from '@bridle/tools'
import { Context, Logger } from 'cordis'
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach } from 'vitest'
import type { McpServerStatus, McpToolsUpdate } from '../src/index.js'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The reference servers, run from this package's node_modules (no network at test time). */
export const EVERYTHING = here('../node_modules/@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM = here('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
/** Our own small server on the SDK's Server class: list changes, cancellations, hangs and freezes on demand. */
export const CONTROL = here('./fixtures/control-server.mjs')

/** Server rows for the config. */
export const rows = {
  everything: () => ({ command: process.execPath, args: [EVERYTHING, 'stdio'] }),
  filesystem: (root: string) => ({ command: process.execPath, args: [FILESYSTEM, root] }),
  control: (options: { tools?: unknown[]; seed?: number } = {}) => ({
    command: process.execPath,
    args: [CONTROL],
    env: {
      FIXTURE_TOOLS: JSON.stringify(options.tools ?? []),
      ...(options.seed === undefined ? {} : { FIXTURE_ORDER_SEED: String(options.seed) }),
    },
  }),
}

/** A fresh folder under the OS temp dir (its real path, as the filesystem server reports it). */
export function tempDir(prefix = 'bridle-mcp-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

/** Everything a test watches on a context: statuses, tool updates, change counters. */
export interface Recorder {
  statuses: McpServerStatus[]
  updates: McpToolsUpdate[]
  counts: { systemPrompt: number; tools: number }
  /** Resolves with the first status of `server` in `state` recorded from index `from` on. */
  status(server: string, state: McpServerStatus['state'], from?: number): Promise<McpServerStatus>
  /** Resolves with the first tools update of `server` from index `from` on that matches `test`. */
  update(server: string, test?: (u: McpToolsUpdate) => boolean, from?: number): Promise<McpToolsUpdate>
}

export function record(ctx: Context): Recorder {
  const statuses: McpServerStatus[] = []
  const updates: McpToolsUpdate[] = []
  const counts = { systemPrompt: 0, tools: 0 }
  const waiters: (() => void)[] = []
  const poke = () => waiters.splice(0).forEach((w) => w())
  ctx.on('mcp/status', (s) => void (statuses.push(s), poke()))
  ctx.on('mcp/tools', (u) => void (updates.push(u), poke()))
  ctx.on('system-prompt/change', () => void (counts.systemPrompt += 1))
  ctx.on('tools/change', () => void (counts.tools += 1))
  const until = <T>(find: () => T | undefined): Promise<T> =>
    new Promise((resolve) => {
      const check = () => {
        const found = find()
        if (found !== undefined) resolve(found)
        else waiters.push(check)
      }
      check()
    })
  return {
    statuses,
    updates,
    counts,
    status: (server, state, from = 0) =>
      until(() => statuses.slice(from).find((s) => s.server === server && s.state === state)),
    update: (server, test = () => true, from = 0) =>
      until(() => updates.slice(from).find((u) => u.server === server && test(u))),
  }
}

/** A context with the system prompt and the tool registry, and a recorder on it. */
export function boot(): { ctx: Context; rec: Recorder } {
  const ctx = new Context()
  ctx.plugin(SystemPrompt)
  ctx.plugin(ToolRegistry)
  return { ctx, rec: record(ctx) }
}

let calls = 0
/** Runs a tool through the registry the way a direct caller does. */
export function run(
  ctx: Context,
  name: string,
  args: Record<string, unknown> = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolExecutionResult> {
  return ctx.tools.execute({ callId: callId(`call-${++calls}`), name, arguments: args as never, signal })
}

/** The text of a result's text blocks. */
export const textOf = (result: ToolExecutionResult) =>
  result.content.map((b) => (b.type === 'text' ? b.text : `<${b.type}>`)).join('\n')

/** Whether a process with this pid exists (a zombie counts until it is reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Resolves once `pid` is gone; the test's own timeout bounds the wait. */
export async function gone(pid: number): Promise<void> {
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20))
}

/**
 * Captures what the plugin logs (warnings and info) for each test instead of printing it, so tests can assert on the
 * warnings they provoke. Returns the live list of `[type, content]` pairs.
 */
export function captureLogs(): { type: string; content: string }[] {
  const seen: { type: string; content: string }[] = []
  let saved: unknown[] = []
  const target = {
    levels: { base: 2 },
    record(r: { name: string; type: string; content: string }) {
      if (r.name === 'mcp') seen.push({ type: r.type, content: r.content })
    },
  }
  beforeEach(() => {
    seen.length = 0
    saved = Logger.targets.splice(0, Logger.targets.length, target as never)
  })
  afterEach(() => {
    Logger.targets.splice(0, Logger.targets.length, ...(saved as never[]))
  })
  return seen
}

/** The warnings among captured logs. */
export const warningsIn = (logs: { type: string; content: string }[]) =>
  logs.filter((l) => l.type === 'warn').map((l) => l.content)

/**
 * Live child processes of `parent` (this process by default) with their command lines, read from /proc (Linux).
 * Empty elsewhere, so tests that rely on it also check the pids they were told.
 */
export function childProcesses(parent = process.pid): { pid: number; cmdline: string }[] {
  if (!existsSync('/proc/self/stat')) return []
  const children: { pid: number; cmdline: string }[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // the command name may hold spaces and parentheses: the fields after the last ')' are fixed
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[1]) !== parent || fields[0] === 'Z') continue
      children.push({
        pid: Number(entry),
        cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim(),
      })
    } catch {
      // the process ended while we looked
    }
  }
  return children
}
