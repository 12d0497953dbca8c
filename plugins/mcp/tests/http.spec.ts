/**
 * Streamable HTTP on loopback: the reference `server-everything` hosted by the SDK's server transport in a child
 * process. Headers reach the server, calls work, a killed host takes the tools away (found by the health ping, as
 * nothing else watches an idle HTTP connection), and a host back on the same port brings them back.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Mcp } from '../src/index.js'
import { boot, captureLogs, run, textOf, warningsIn } from './helpers.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const logs = captureLogs()
const HOST = fileURLToPath(new URL('./fixtures/everything-http.mjs', import.meta.url))

/** A running host: its port and everything it printed. */
interface Host {
  child: ChildProcess
  port: number
  lines: string[]
  /** Resolves once a line matching `pattern` was printed. */
  line(pattern: RegExp): Promise<string>
}

const hosts: ChildProcess[] = []
afterEach(() => hosts.splice(0).forEach((h) => h.kill('SIGKILL')))

async function startHost(port = 0): Promise<Host> {
  const child = spawn(process.execPath, [HOST], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  hosts.push(child)
  const lines: string[] = []
  const waiters: (() => void)[] = []
  let buffer = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8')
    const parts = buffer.split('\n')
    buffer = parts.pop()!
    lines.push(...parts)
    waiters.splice(0).forEach((w) => w())
  })
  const line = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const found = lines.find((l) => pattern.test(l))
        if (found !== undefined) resolve(found)
        else waiters.push(check)
      }
      check()
    })
  const listening = await line(/^listening \d+$/)
  return { child, port: Number(listening.split(' ')[1]), lines, line }
}

describe('a Streamable HTTP server on loopback', () => {
  it('serves tools with the configured headers, loses them when the host dies and gets them back when it returns', async () => {
    const host = await startHost()
    const { ctx, rec } = boot()
    const plugin = ctx.plugin(Mcp, {
      servers: {
        web: {
          url: `http://127.0.0.1:${host.port}/mcp`,
          headers: { Authorization: 'Bearer test-token' },
          pingIntervalMs: 100,
          pingTimeoutMs: 10_000,
          reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
        },
      },
    })
    const ready = await rec.status('web', 'ready')
    expect(ready.pid).toBeUndefined()
    expect(ready.tools).toContain('web__echo')
    expect(await host.line(/^auth /)).toBe('auth Bearer test-token')
    expect(textOf(await run(ctx, 'web__echo', { message: 'over http' }))).toBe('Echo: over http')

    const mark = rec.statuses.length
    host.child.kill('SIGKILL')
    const down = await rec.status('web', 'failed', mark)
    // refused or reset, depending on whether a kept-alive socket was open
    expect(down.error).toMatch(
      /^stopped: a periodic ping failed: fetch failed: .*(ECONNREFUSED|ECONNRESET|other side closed)/,
    )
    expect(ctx.tools.schemas()).toEqual([])
    expect(warningsIn(logs)[0]).toMatch(
      /^MCP server "web" stopped: .*; its \d+ tool\(s\) are removed until it is back; reconnecting in 50 ms \(attempt 1\)/,
    )

    const again = await startHost(host.port)
    const back = await rec.status('web', 'ready', mark)
    expect(back.tools).toEqual(ready.tools)
    expect(await again.line(/^auth /)).toBe('auth Bearer test-token')
    expect(textOf(await run(ctx, 'web__echo', { message: 'back' }))).toBe('Echo: back')

    plugin.dispose()
    await rec.status('web', 'closed')
    // the client ended its session on the server instead of leaving it open
    expect(await again.line(/^terminated$/)).toBe('terminated')
  })
})
