/**
 * The throwaway server starts from any checkout and a failed start is an error that says what, where, as whom and
 * the fix, and leaves nothing behind: no process, no data folder.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort, packagedNative, PostgresStartError, startServer } from '../src/index.js'

const root = userInfo().uid === 0

/** Command lines of live processes that mention `needle`. */
function processesMentioning(needle: string): string[] {
  const found: string[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
      if (cmdline.includes(needle)) found.push(`${pid}: ${cmdline}`)
    } catch {
      // the process ended while we looked
    }
  }
  return found
}

/** Asserts that the failed start left neither its data folder nor a server process running over it. */
function expectNothingLeft(error: PostgresStartError) {
  const dataDir = error.details.dataDir
  if (dataDir === undefined) return
  expect(existsSync(join(dataDir, '..'))).toBe(false)
  expect(processesMentioning(dataDir)).toEqual([])
}

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

/** A copy of the packaged binaries inside a folder the server's account cannot enter (mode 700, or 000 for us). */
function lockedCopy(): { native: string; locked: string } {
  const base = mkdtempSync(join(tmpdir(), 'bridle-locked-'))
  chmodSync(base, 0o755)
  const locked = join(base, 'locked')
  mkdirSync(locked)
  const native = join(locked, 'native')
  cpSync(packagedNative().native, native, { recursive: true, verbatimSymlinks: true })
  chmodSync(locked, root ? 0o700 : 0o000)
  cleanups.push(() => {
    chmodSync(locked, 0o700)
    rmSync(base, { recursive: true, force: true })
  })
  return { native, locked }
}

describe('startServer', () => {
  it('starts a server that takes connections, and stop() removes its process and data folder', async () => {
    const server = await startServer({ own: true })
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    const { rows } = await client.query('select 1 + 1 as two')
    await client.end()
    expect(rows).toEqual([{ two: 2 }])
    const folder = join(server.dataDir, '..')
    await server.stop()
    expect(readdirSync(tmpdir())).not.toContain(folder.split('/').at(-1))
    expect(processesMentioning(server.dataDir)).toEqual([])
  })

  it('refuses binaries its account cannot reach, naming the binary, the account, the folder and the fix', async () => {
    const { native, locked } = lockedCopy()
    // the cache for a copy is locked too, so no copy can help
    const error = await startServer({ own: true, native, cacheDir: join(locked, 'cache') }).catch((e) => e)
    expect(error).toBeInstanceOf(PostgresStartError)
    const message = String(error.message)
    expect(message).toContain(`PostgreSQL cannot start: ${join(native, 'bin', 'postgres')} cannot be run by user`)
    expect(message).toContain(root ? 'user "postgres"' : `user "${userInfo().username}"`)
    expect(message).toContain(root ? `cannot enter ${locked} (mode 700` : `cannot enter ${locked} (mode 000`)
    expect(message).toContain('Fix: set BRIDLE_PG_BINARIES_DIR to a folder')
    expect(message).toContain('BRIDLE_TEST_PG_URL')
    expectNothingLeft(error)
  })

  it.runIf(root)('as root, copies binaries that "postgres" cannot reach into a cache folder it can enter', async () => {
    const { native } = lockedCopy()
    const cacheDir = mkdtempSync(join(tmpdir(), 'bridle-cache-'))
    chmodSync(cacheDir, 0o755)
    cleanups.push(() => rmSync(cacheDir, { recursive: true, force: true }))
    const server = await startServer({ own: true, native, cacheDir })
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    await client.end()
    await server.stop()
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^bridle-postgres-custom-/)])
  })

  it('a server that exits during start-up (its port is taken) is an error, and its data folder is removed', async () => {
    const port = await freePort()
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve))
    cleanups.push(() => blocker.close())
    const error = await startServer({ own: true, port }).catch((e) => e)
    expect(error).toBeInstanceOf(PostgresStartError)
    expect(String(error.message)).toMatch(/^PostgreSQL cannot start: the server exited during start-up/)
    expect(String(error.message)).toMatch(/could not (bind|create listen socket)/)
    expect(error.details.dataDir).toEqual(expect.any(String))
    expectNothingLeft(error)
  })
})
