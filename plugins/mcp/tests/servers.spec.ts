/**
 * Against the reference servers (`server-everything`, `server-filesystem`) and the control fixture, all started as
 * child processes: namespaced names, schemas passed through byte for byte, results mapped, cancellation reaching the
 * server, and disposal that removes exactly a fork's tools and leaves no child process.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { Mcp, McpServer } from '../src/index.js'
import { boot, captureLogs, childProcesses, isAlive, rows, run, tempDir, textOf } from './helpers.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const logs = captureLogs()

describe('the reference servers through ctx.tools', () => {
  const root = tempDir()
  writeFileSync(join(root, 'hello.txt'), 'first line\nsecond line\n')
  const { ctx, rec } = boot()
  const plugin = ctx.plugin(Mcp, { servers: { fs: rows.filesystem(root), everything: rows.everything() } })
  const ready = Promise.all([rec.status('everything', 'ready'), rec.status('fs', 'ready')])
  afterAll(() => void plugin.dispose())

  it('registers every callable tool as <server>__<tool>, and leaves out a task-only tool with a note', async () => {
    await ready
    const names = ctx.tools.schemas().map((s) => s.name)
    expect(names).toContain('everything__echo')
    expect(names).toContain('everything__get-tiny-image')
    expect(names).toContain('fs__read_text_file')
    expect(names).toContain('fs__write_file')
    expect(names.every((n) => /^(everything|fs)__[a-zA-Z0-9_-]+$/.test(n))).toBe(true)
    // simulate-research-query needs MCP tasks, which a plain tools/call cannot drive
    expect(names).not.toContain('everything__simulate-research-query')
    expect(logs.map((l) => l.content)).toContain(
      'MCP server "everything": tool "simulate-research-query" is not offered to the model: it requires task-based execution, which this client does not use',
    )
    const fsReady = rec.statuses.find((s) => s.server === 'fs' && s.state === 'ready')!
    expect(fsReady.tools).toEqual(names.filter((n) => n.startsWith('fs__')).sort())
  })

  it('passes the server schema through untouched (key order included) and keeps descriptions', async () => {
    await ready
    const echo = ctx.tools.schemas().find((s) => s.name === 'everything__echo')!
    expect(echo.description).toBe('Echoes back the input string')
    // the SDK's own listTools would have moved `type` in front of `$schema`
    expect(Object.keys(echo.parameters as object)[0]).toBe('$schema')
    expect(echo.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    })
  })

  it('maps text, image, structured content and isError results onto Bridle results', async () => {
    await ready
    expect(textOf(await run(ctx, 'everything__echo', { message: 'hi there' }))).toBe('Echo: hi there')

    const image = await run(ctx, 'everything__get-tiny-image')
    expect(image.isError).toBe(false)
    expect(image.content[1]).toEqual({
      type: 'text',
      text: expect.stringMatching(/^\[image: image\/png, \d+ bytes, sha256 [0-9a-f]{16}; not shown\]$/),
    })

    const weather = await run(ctx, 'everything__get-structured-content', { location: 'Chicago' })
    expect(weather.meta).toEqual({ structuredContent: JSON.parse(textOf(weather)) })

    const file = await run(ctx, 'fs__read_text_file', { path: join(root, 'hello.txt') })
    expect(textOf(file)).toBe('first line\nsecond line\n')

    const outside = await run(ctx, 'fs__read_text_file', { path: '/etc/hostname' })
    expect(outside.isError).toBe(true)
    expect(outside.error!.info).toEqual({ name: 'McpToolError', code: 'TOOL_ERROR' })
    expect(textOf(outside)).toMatch(/^Error: Access denied - path outside allowed directories/)
  })

  it('a model-facing error for arguments the server rejects', async () => {
    await ready
    const bad = await run(ctx, 'everything__get-sum', { a: 'one' })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toMatch(/^Error: .*Invalid arguments for tool get-sum/)
  })
})

describe('the control fixture', () => {
  const { ctx, rec } = boot()
  const fork = ctx.plugin(McpServer, { name: 'ctl', ...rows.control() })
  afterAll(() => void fork.dispose())

  it('a JSON-RPC error answer is a PROTOCOL_ERROR result naming the server and the tool', async () => {
    await rec.status('ctl', 'ready')
    const failed = await run(ctx, 'ctl__fixture_fail')
    expect(failed.error).toEqual({
      message:
        'MCP server "ctl" refused the call to "fixture_fail": fixture_fail always refuses (JSON-RPC error -32602)',
      info: { name: 'McpToolError', code: 'PROTOCOL_ERROR' },
    })
  })

  it('structured content without text reaches the model as JSON and stays in meta', async () => {
    await rec.status('ctl', 'ready')
    const echoed = await run(ctx, 'ctl__fixture_echo', { text: 'x' })
    expect(echoed.content).toEqual([{ type: 'text', text: '{"text":"x"}' }])
    expect(echoed.meta).toEqual({ structuredContent: { echoed: { text: 'x' } } })
    // readOnlyHint → safe to run in parallel
    expect(
      ctx.tools.executionMode({
        callId: 'm',
        name: 'ctl__fixture_echo',
        arguments: {},
        signal: new AbortController().signal,
      }),
    ).toBe('parallel')
    expect(
      ctx.tools.executionMode({
        callId: 'm',
        name: 'ctl__fixture_wait',
        arguments: {},
        signal: new AbortController().signal,
      }),
    ).toBe('exclusive')
  })

  it("the call's abort signal cancels the request on the server", async () => {
    await rec.status('ctl', 'ready')
    const controller = new AbortController()
    const call = run(ctx, 'ctl__fixture_wait', {}, controller.signal)
    // abort once the server runs the call, so the cancellation has a request to cancel
    while (textOf(await run(ctx, 'ctl__fixture_waiting')) !== '1') await new Promise((r) => setTimeout(r, 5))
    controller.abort(new Error('the user pressed stop'))
    const result = await call
    expect(result.isError).toBe(true)
    expect(result.error!.info).toEqual({ name: 'McpToolError', code: 'ABORTED' })
    expect(textOf(result)).toBe(
      'Error: the call to "fixture_wait" was cancelled (the request was cancelled on MCP server "ctl")',
    )
    expect(textOf(await run(ctx, 'ctl__fixture_cancellations'))).toBe('1')
  })
})

describe('disposal', () => {
  it('disposing one server fork removes exactly its tools; disposing the plugin closes every client and child', async () => {
    const { ctx, rec } = boot()
    const keep = ctx.plugin(McpServer, { name: 'keep', ...rows.control({ tools: [{ name: 'mine' }] }) })
    const plugin = ctx.plugin(Mcp, { servers: { a: rows.control(), b: rows.control({ tools: [{ name: 'extra' }] }) } })
    const [k, a, b] = await Promise.all([
      rec.status('keep', 'ready'),
      rec.status('a', 'ready'),
      rec.status('b', 'ready'),
    ])
    const before = ctx.tools
      .schemas()
      .map((s) => s.name)
      .sort()
    const changes = rec.counts.tools

    keep.dispose()
    await rec.status('keep', 'closed')
    expect(isAlive(k.pid!)).toBe(false)
    expect(rec.counts.tools - changes).toBe(k.tools.length)
    expect(
      ctx.tools
        .schemas()
        .map((s) => s.name)
        .sort(),
    ).toEqual(before.filter((n) => !n.startsWith('keep__')))

    plugin.dispose()
    await Promise.all([rec.status('a', 'closed'), rec.status('b', 'closed')])
    expect([a.pid, b.pid].map((pid) => isAlive(pid!))).toEqual([false, false])
    expect(ctx.tools.schemas()).toEqual([])
    expect(childProcesses().filter((c) => c.cmdline.includes('control-server'))).toEqual([])
  })

  it('disposing while a server is still starting leaves no child either', async () => {
    const { ctx, rec } = boot()
    const fork = ctx.plugin(McpServer, { name: 'early', ...rows.control() })
    // dispose once the child runs, before it could have answered initialize
    while (!childProcesses().some((c) => c.cmdline.includes('control-server')))
      await new Promise((r) => setTimeout(r, 5))
    fork.dispose()
    await rec.status('early', 'closed')
    expect(rec.statuses.map((s) => s.state)).not.toContain('ready')
    expect(childProcesses().filter((c) => c.cmdline.includes('control-server'))).toEqual([])
  })
})
