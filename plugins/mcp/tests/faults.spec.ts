/**
 * Faults with real child processes: a server that cannot start, one that never answers `initialize`, one killed
 * with SIGKILL mid-call, one that freezes. Each gives a warning naming the server, takes its tools away at once
 * (never half-registered), fails calls in flight with a result the model can read, and comes back after backoff.
 */
import { describe, expect, it, vi } from 'vitest'
import { McpServer } from '../src/index.js'
import { boot, captureLogs, childProcesses, isAlive, rows, run, textOf, warningsIn } from './helpers.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const logs = captureLogs()
const fast = { initialDelayMs: 20, maxDelayMs: 40 }

describe('a server that cannot start', () => {
  it('warns with the server, the command and the reason, retries with backoff, and gives up after maxAttempts', async () => {
    const { ctx, rec } = boot()
    const command = '/nonexistent/bridle-mcp-server'
    const fork = ctx.plugin(McpServer, {
      name: 'ghost',
      command,
      args: ['--x'],
      reconnect: { initialDelayMs: 30, factor: 3, maxAttempts: 2 },
    })
    const failures = () => rec.statuses.filter((s) => s.state === 'failed')
    while (failures().length < 3) await rec.status('ghost', 'failed', rec.statuses.length)
    expect(failures().map((s) => [s.attempt, s.retryInMs])).toEqual([
      [1, 30],
      [2, 90],
      [3, undefined],
    ])
    expect(warningsIn(logs)).toEqual([
      `MCP server "ghost" failed to start (${command} --x): spawn ${command} ENOENT; reconnecting in 30 ms (attempt 1)`,
      `MCP server "ghost" failed to start (${command} --x): spawn ${command} ENOENT; reconnecting in 90 ms (attempt 2)`,
      `MCP server "ghost" failed to start (${command} --x): spawn ${command} ENOENT; giving up after 2 reconnect attempt(s) (reconnect.maxAttempts); reload the plugin to try again`,
    ])
    expect(ctx.tools.schemas()).toEqual([])
    expect(rec.counts.tools).toBe(0)
    fork.dispose()
    await rec.status('ghost', 'closed')
  })

  it('a server that never answers initialize times out (named), and its child is gone before the warning', async () => {
    const { ctx, rec } = boot()
    const fork = ctx.plugin(McpServer, {
      name: 'mute',
      command: process.execPath,
      args: ['-e', 'process.stdin.resume()'],
      startupTimeoutMs: 300,
      reconnect: { maxAttempts: 0 },
    })
    const failed = await rec.status('mute', 'failed')
    expect(failed.error).toBe(
      `failed to start (${process.execPath} -e process.stdin.resume()): it did not answer within 300 ms (startupTimeoutMs)`,
    )
    expect(warningsIn(logs)[0]).toMatch(
      /^MCP server "mute" failed to start .*: it did not answer within 300 ms \(startupTimeoutMs\); giving up/,
    )
    expect(childProcesses().filter((c) => c.cmdline.includes('stdin.resume'))).toEqual([])
    fork.dispose()
  })

  it('a start failure quotes the last lines the server wrote to stderr', async () => {
    const { ctx, rec } = boot()
    const fork = ctx.plugin(McpServer, {
      name: 'broken',
      command: process.execPath,
      args: ['-e', 'console.error("config file missing: /etc/broken.json"); process.exit(3)'],
      reconnect: { maxAttempts: 0 },
    })
    const failed = await rec.status('broken', 'failed')
    expect(failed.error).toMatch(
      /^failed to start .*: MCP error -32000: Connection closed\nserver stderr \(last lines\):\nconfig file missing: \/etc\/broken.json$/,
    )
    expect(warningsIn(logs)[0]).toMatch(
      /giving up .*\nserver stderr \(last lines\):\nconfig file missing: \/etc\/broken.json$/,
    )
    fork.dispose()
  })
})

describe('a server killed while serving', () => {
  it('fails the call in flight, removes its tools at once, warns, reconnects and brings the same tools back', async () => {
    const { ctx, rec } = boot()
    const fork = ctx.plugin(McpServer, {
      name: 'ctl',
      ...rows.control({ tools: [{ name: 'lookup' }] }),
      reconnect: fast,
    })
    const first = await rec.status('ctl', 'ready')
    const tools = first.tools
    expect(tools).toContain('ctl__lookup')

    const inFlight = run(ctx, 'ctl__fixture_wait')
    while (textOf(await run(ctx, 'ctl__fixture_waiting')) !== '1') await new Promise((r) => setTimeout(r, 5))
    const mark = rec.statuses.length
    process.kill(first.pid!, 'SIGKILL')

    const result = await inFlight
    expect(result.isError).toBe(true)
    expect(result.error!.info).toEqual({ name: 'McpToolError', code: 'SERVER_UNAVAILABLE' })
    expect(textOf(result)).toMatch(
      /^Error: MCP server "ctl" closed the connection while "fixture_wait" was running: the server closed the connection/,
    )

    const down = await rec.status('ctl', 'failed', mark)
    expect(down.tools).toEqual([])
    expect(ctx.tools.schemas()).toEqual([])
    expect(rec.updates.find((u) => u.removed.length > 0)).toEqual({
      server: 'ctl',
      added: [],
      removed: tools,
      changed: [],
    })
    expect(warningsIn(logs)).toEqual([
      `MCP server "ctl" stopped: the server closed the connection; its ${tools.length} tool(s) are removed until it is back; reconnecting in 20 ms (attempt 1)` +
        '\nserver stderr (last lines):\ncontrol fixture ready',
    ])
    expect(isAlive(first.pid!)).toBe(false)

    // a call that races the reconnect reads why it cannot run
    const meanwhile = await ctx.tools.execute({
      callId: 'x',
      name: 'ctl__lookup',
      arguments: {},
      signal: new AbortController().signal,
    })
    expect(meanwhile.error?.info?.code ?? 'UNKNOWN_TOOL').toMatch(/^(UNKNOWN_TOOL|SERVER_UNAVAILABLE)$/)

    const back = await rec.status('ctl', 'ready', mark)
    expect(back.pid).not.toBe(first.pid)
    expect(back.tools).toEqual(tools)
    expect(textOf(await run(ctx, 'ctl__lookup', { q: 1 }))).toBe('lookup ran with {"q":1}')
    fork.dispose()
    await rec.status('ctl', 'closed')
    expect(isAlive(back.pid!)).toBe(false)
  })
})

describe('timeouts', () => {
  it('a slow call times out with a readable error while a responsive server stays up; a frozen one is restarted', async () => {
    const { ctx, rec } = boot()
    const fork = ctx.plugin(McpServer, {
      name: 'slow',
      ...rows.control(),
      callTimeoutMs: 1500,
      pingTimeoutMs: 3000,
      reconnect: fast,
    })
    const first = await rec.status('slow', 'ready')

    const hung = await run(ctx, 'slow__fixture_hang')
    expect(hung.error).toEqual({
      message: 'MCP server "slow" did not answer the call to "fixture_hang" within 1500 ms (callTimeoutMs)',
      info: { name: 'McpToolError', code: 'TIMEOUT' },
    })
    // the health ping after the timeout is answered: still the same session
    expect(textOf(await run(ctx, 'slow__fixture_echo', { text: 'alive' }))).toBe('{"text":"alive"}')
    expect(rec.statuses.filter((s) => s.state === 'failed')).toEqual([])

    const frozen = await run(ctx, 'slow__fixture_freeze')
    expect(frozen.error!.info!.code).toBe('TIMEOUT')
    const down = await rec.status('slow', 'failed')
    expect(down.error).toBe(
      'stopped: it did not answer a ping after a call to "fixture_freeze" timed out within 3000 ms (pingTimeoutMs)' +
        '\nserver stderr (last lines):\ncontrol fixture ready',
    )
    expect(warningsIn(logs)[0]).toMatch(
      /^MCP server "slow" stopped: it did not answer a ping after a call to "fixture_freeze" timed out/,
    )
    const back = await rec.status('slow', 'ready', rec.statuses.indexOf(down))
    expect(isAlive(first.pid!)).toBe(false)
    expect(back.tools).toEqual(first.tools)
    fork.dispose()
    await rec.status('slow', 'closed')
  })
})
