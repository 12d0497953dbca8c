import { isIP } from 'node:net'
import { redactSecrets } from '@bridle/llm'
import type { SessionPersistence } from '@bridle/session'
import { loadAssets, startViewServer, ViewSource, writeSessionHtml, WriteWholeError } from '@bridle/view'
import { checkOutputFile } from '../output-file.js'
import { openReader } from '../reader.js'
import { resolveSessionId } from '../session-id.js'
import { RuntimeFailure, UsageError } from '../errors.js'
import type { Io } from '../terminal.js'

export interface ViewOptions {
  config?: string
  port?: string
  host?: string
  /** Allows a host that is not a loopback address. */
  expose?: boolean
}

/** True for names and addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (bare === 'localhost') return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  return bare === '::1'
}

export function parsePort(text: string | undefined): number {
  if (text === undefined) return 0
  const port = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(port) || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${text}"`)
  }
  return port
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/**
 * `bridle view [ID]`: serves the session viewer on loopback (a free port unless `--port`) until interrupted, and
 * prints its URL (the session's page when ID is given). It only reads the app's session backend.
 */
export async function view(
  id: string | undefined,
  options: ViewOptions,
  io: Io,
  stop: Promise<void> = untilSignal(),
): Promise<number> {
  const host = options.host ?? '127.0.0.1'
  const port = parsePort(options.port)
  const loopback = isLoopback(host)
  if (!loopback && !options.expose) {
    throw new UsageError(
      `--host ${host} is not a loopback address; anyone who can reach it could read every session ` +
        '(prompts, tool results, file contents). Add --expose to serve it there anyway',
    )
  }
  const reader = await openReader(options.config)
  try {
    // `[::1]` is how a URL writes the address; `listen` wants it bare
    return await serve(reader.persistence, id, { host: host.replace(/^\[(.*)\]$/, '$1'), port, loopback }, io, stop)
  } finally {
    await reader.close()
  }
}

/**
 * Starts the server, turning the listen errors a user can cause into usage errors in the CLI's grammar: a port in
 * use or not allowed, an address no interface has. Anything else is rethrown.
 */
async function listenOrExplain<T>(host: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE')
      throw new UsageError(
        `-p ${port}: the port is in use on ${host} (another program listens there); pick another port, or leave out -p for a free one`,
      )
    if (code === 'EACCES')
      throw new UsageError(
        `-p ${port}: not allowed to listen on it (ports below 1024 need privileges); pick a port from 1024 to 65535, or leave out -p`,
      )
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new UsageError(`--host ${host}: no network interface of this machine has that address`)
    throw error
  }
}

/** Serves the viewer over `persistence` until `stop` resolves. */
async function serve(
  persistence: SessionPersistence,
  id: string | undefined,
  { host, port, loopback }: { host: string; port: number; loopback: boolean },
  io: Io,
  stop: Promise<void>,
): Promise<number> {
  const source = new ViewSource(persistence)
  if (id !== undefined) id = await resolveSessionId(persistence, id)
  const assets = await loadAssets()
  const server = await listenOrExplain(host, port, () =>
    startViewServer({
      source,
      assets,
      host,
      port,
      anyHost: !loopback,
      redact: (text) => redactSecrets(text),
      onError: (error) => io.err(`bridle view: ${error instanceof Error ? error.message : String(error)}\n`),
    }),
  )
  if (!loopback) {
    io.err(
      `bridle view: WARNING: serving on ${host}, which other machines may reach; there is no authentication, ` +
        'so every stored session is readable by anyone who can connect\n',
    )
  }
  io.out(`${server.url}${id === undefined ? '' : `#/session/${encodeURIComponent(id)}`}\n`)
  io.err('bridle view: serving sessions read-only; press Ctrl-C to stop\n')
  await stop
  await server.close()
  return 0
}

/** `bridle inspect ID --html FILE`: the viewer of one session as one self-contained HTML file. */
export async function inspectHtml(
  id: string,
  file: string,
  options: { config?: string; root?: string },
  io: Io,
): Promise<number> {
  checkOutputFile('--html', file)
  const reader = await openReader(options.config, options.root)
  let written: { bytes: number; requests: number }
  try {
    id = await resolveSessionId(reader.persistence, id)
    written = await writeSessionHtml(new ViewSource(reader.persistence), id, file, (text) => redactSecrets(text)).catch(
      (error: unknown) => {
        throw error instanceof WriteWholeError ? new RuntimeFailure(`--html ${error.message}`, { cause: error }) : error
      },
    )
  } finally {
    await reader.close()
  }
  const { bytes, requests } = written
  io.err(
    `bridle: wrote ${file} (session ${id}, ${requests} request${requests === 1 ? '' : 's'}, ${Math.ceil(bytes / 1024)} KiB)\n`,
  )
  return 0
}
