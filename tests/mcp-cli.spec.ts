/**
 * @bridle/plugin-mcp through the real `bridle` binary: a bridle.yaml row that declares the filesystem server, a
 * scripted-model turn that calls one of its tools (the result reaches the log and the next request, `inspect --verify`
 * passes, and `bridle view` in headless Chromium shows the tool and its result), and `bridle dev` hot-reloading a
 * plugin file that declares MCP servers (the old server's child exits, the new server's tools are in the next request).
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { reconstructRequest, type SessionEvent } from '@bridle/session'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { closeBrowser, launchBrowser, pageErrors, textOnce } from '../packages/view/tests/browser.js'
import { DevSession } from '../packages/cli/tests/dev-session.js'
import { bridle, sessionIdOf } from '../packages/cli/tests/helpers.js'
import { startView } from '../packages/cli/tests/view-server.js'
import { childProcesses, CONTROL, FILESYSTEM, gone, isAlive, tempDir } from '../plugins/mcp/tests/helpers.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const PLUGIN_DIR = fileURLToPath(new URL('../plugins/mcp', import.meta.url))

/** An app folder with `@bridle/plugin-mcp` installed beside its bridle.yaml (a link to this repo's package). */
function makeApp(yaml: string): string {
  const app = tempDir('bridle-mcp-app-')
  mkdirSync(join(app, 'node_modules', '@bridle'), { recursive: true })
  symlinkSync(PLUGIN_DIR, join(app, 'node_modules', '@bridle', 'plugin-mcp'), 'dir')
  mkdirSync(join(app, 'plugins'))
  writeFileSync(join(app, 'bridle.yaml'), yaml)
  return app
}

const readEvents = (file: string): SessionEvent[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as SessionEvent)

/** Live children of `pid` whose command line mentions `needle`. */
const childrenOf = (pid: number, needle: string) =>
  childProcesses(pid)
    .filter((c) => c.cmdline.includes(needle))
    .map((c) => c.pid)

describe('bridle run with an MCP server from bridle.yaml', () => {
  it("the scripted model calls the filesystem server's tool; the result is logged, sent next, and verifies", async () => {
    const app = makeApp('')
    const workspace = join(app, 'workspace')
    mkdirSync(workspace)
    writeFileSync(join(workspace, 'notes.txt'), 'The launch code word is heliotrope.\n')
    const yaml = `plugins:
  - package: "@bridle/plugin-mcp"
    config:
      servers:
        fs:
          command: ${JSON.stringify(process.execPath)}
          args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(workspace)}]
  - package: "@bridle/session-jsonl"
    config:
      root: sessions
scripted:
  turns:
    - steps:
        - toolCalls:
            - name: fs__read_text_file
              arguments: { path: ${JSON.stringify(join(workspace, 'notes.txt'))} }
        - text: "The notes say: {{tool-result}}"
`
    writeFileSync(join(app, 'bridle.yaml'), yaml)
    const out = await bridle(['run', 'What do the notes say?'], app)
    expect(out.stderr).not.toMatch(/MCP server .* (failed|stopped)/)
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('→ fs__read_text_file')
    expect(out.stdout).toContain('The notes say: The launch code word is heliotrope.')

    const id = sessionIdOf(out.stderr)
    const events = readEvents(join(app, 'sessions', `${id}.jsonl`))
    const header = events.find((e) => e.type === 'request/header')!.data as {
      header: { tools: readonly { name: string }[] }
    }
    // boot waited for the server: the very first request already offered its tools
    expect(header.header.tools.map((t) => t.name)).toContain('fs__read_text_file')
    const result = events.find((e) => e.type === 'tool/result')!.data as {
      message: { content: readonly { content: readonly { text: string }[] }[] }
    }
    expect(result.message.content[0]!.content[0]!.text).toBe('The launch code word is heliotrope.\n')
    const step2 = reconstructRequest(events, { turn: 1, step: 2 })
    expect(JSON.stringify(step2.messages)).toContain('The launch code word is heliotrope.')

    const verified = await bridle(['inspect', id, '--verify'], app)
    expect(verified.code).toBe(0)
    expect(verified.stdout).toContain('✓ turn 1 step 1 attempt 1')
    expect(verified.stdout).toContain('✓ turn 1 step 2 attempt 1')

    // the viewer shows the server's tool in the request and its result among the messages the next request sent
    const view = await startView([id], app)
    let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined
    try {
      browser = await launchBrowser()
      const page = await browser.newPage()
      const errors = pageErrors(page)
      await page.goto(view.url)
      // the page renders after its data arrives: wait for the link rather than race the client
      const link = '[data-step="1.2"] a[href*="/request/"]'
      await page.waitForSelector(link)
      await page.click(link)
      await textOnce(page, '.block.tool-result')
      expect(await page.$eval('#tools', (tools) => tools.textContent)).toContain('fs__read_text_file')
      expect(await page.$eval('.block.tool-result', (result) => result.textContent)).toContain(
        'The launch code word is heliotrope.',
      )
      expect(errors).toEqual([])
      await page.goto('about:blank')
    } finally {
      await closeBrowser(browser)
      expect((await view.stop()).code).toBe(0)
    }
  })
})

const serversFile = (server: string, tools: string[]) => `import { Mcp } from '@bridle/plugin-mcp'

export default {
  name: 'mcp-servers',
  apply(ctx) {
    ctx.plugin(Mcp, {
      servers: {
        ${server}: {
          command: ${JSON.stringify(process.execPath)},
          args: [${JSON.stringify(CONTROL)}],
          env: { FIXTURE_TOOLS: ${JSON.stringify(JSON.stringify(tools.map((name) => ({ name }))))} },
        },
      },
    })
  },
}
`

describe('bridle dev with a plugin file that declares MCP servers', () => {
  let dev: DevSession | undefined
  afterEach(() => void dev?.child.kill())

  it("a reload closes the old server's child and the next request has only the new server's tools", async () => {
    const app = makeApp(`plugins:
  - package: "@bridle/session-jsonl"
    config:
      root: sessions
scripted:
  turns:
    - steps:
        - text: ok
`)
    const file = join(app, 'plugins', 'mcp-servers.mjs')
    writeFileSync(file, serversFile('first', ['lookup']))
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    // one system-prompt/change per registered tool: lookup and the control tools
    const loaded = /bridle dev: loaded plugins\/mcp-servers\.mjs \(system-prompt\/change ×(\d+)\)/.exec(dev.stderr)
    expect(loaded).not.toBeNull()
    const before = Number(loaded![1])
    const [oldChild] = childrenOf(dev.child.pid!, 'control-server')
    expect(oldChild).toBeDefined()
    await dev.prompt('first question')

    const from = dev.stderr.length
    const reloaded = dev.waitFor(/bridle dev: reloaded plugins\/mcp-servers\.mjs/)
    writeFileSync(file, serversFile('second', ['search', 'fetch']))
    await reloaded
    // every old tool went (one change each) and every new one came (one each): one more tool than before
    expect(dev.stderr.slice(from)).toContain(
      `bridle dev: reloaded plugins/mcp-servers.mjs (system-prompt/change ×${before + before + 1})`,
    )
    expect(isAlive(oldChild!)).toBe(false)
    const now = childrenOf(dev.child.pid!, 'control-server')
    expect(now).toHaveLength(1)
    expect(now[0]).not.toBe(oldChild)
    await dev.prompt('second question')

    expect(await dev.end()).toBe(0)
    const id = sessionIdOf(dev.stderr)
    const headers = readEvents(join(app, 'sessions', `${id}.jsonl`))
      .filter((e) => e.type === 'request/header')
      .map((e) => e.data as { reason: string; header: { tools: readonly { name: string }[] } })
    expect(headers.map((h) => h.reason)).toEqual(['initial', 'change'])
    const names = headers.map((h) => h.header.tools.map((t) => t.name).filter((n) => !n.includes('fixture_')))
    expect(names).toEqual([['first__lookup'], ['second__fetch', 'second__search']])
    // the CLI exits without waiting for plugins: the child goes on its own (stdin closed, SIGTERM on exit)
    await gone(now[0]!)
  })
})
