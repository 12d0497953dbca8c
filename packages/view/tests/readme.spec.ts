// The README examples, run from the README's text: the handler in a plain http server, then the HTML export.
import { existsSync, readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { expect, it } from 'vitest'
import { readmeBlock, runExample, swapOnce } from '../../../tests/support/readme-example.js'
import type { ViewHandler } from '../src/index.js'
import { ask, makeApp } from './app.js'

it('README examples', async () => {
  const app = makeApp()
  const id = await ask(app, 'What is the package name?')
  expect(id).toBe('session-1')
  const readme = new URL('../README.md', import.meta.url)
  let code = `${readmeBlock(readme)}\n${readmeBlock(readme, { index: 1 })}`
  code = swapOnce(code, "root: '.bridle/sessions'", `root: ${JSON.stringify(app.sessions)}`)
  code = swapOnce(code, 'const port = 8080', 'const port = 0')
  const file = join(app.dir, 'session-1.html')
  code = swapOnce(code, "'session-1.html'", JSON.stringify(file))
  code += '\nexport { ctx, server, viewer }\n'
  const { exports } = await runExample(code, import.meta.url)
  const { ctx, server, viewer } = exports as { ctx: Context; server: Server; viewer: ViewHandler }
  try {
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const sessions = (await (await fetch(`${base}/api/sessions`)).json()) as { id: string; verify: string }[]
    expect(sessions).toMatchObject([{ id, verify: 'ok' }])
    expect((await fetch(`${base}/`)).headers.get('content-type')).toBe('text/html; charset=utf-8')
    const other = await fetch(`${base}/elsewhere`)
    expect([other.status, await other.text()]).toEqual([404, 'not found'])
    expect(existsSync(file)).toBe(true)
    expect(readFileSync(file, 'utf8')).toContain('<script type="application/json" id="bridle-data">')
  } finally {
    await viewer.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    ctx.scope.dispose()
  }
})
