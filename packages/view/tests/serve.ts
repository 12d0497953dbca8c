import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createViewHandler } from '../src/index.js'
import { openSource, type TestApp } from './app.js'

export interface ServedView {
  /** `http://127.0.0.1:PORT/`. */
  url: string
  close(): Promise<void>
}

/**
 * The viewer of `app`'s sessions as a host application mounts it: `createViewHandler` in a plain Node
 * `http.createServer` on loopback, every path it does not serve answered 404 by the host.
 */
export async function serveView(app: TestApp): Promise<ServedView> {
  const opened = await openSource(app)
  const errors: unknown[] = []
  const handler = createViewHandler({ source: opened.source, pollMs: 100, onError: (error) => errors.push(error) })
  const server = createServer(async (req, res) => {
    if (await handler(req, res)) return
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      await handler.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await opened.close()
      if (errors.length > 0) throw new Error(`the viewer answered 500: ${errors.map(String).join('; ')}`)
    },
  }
}
