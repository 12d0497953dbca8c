import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BinaryOptions, type PostgresBinaries, runnableBinaries } from './binaries.js'
import { PostgresStartError } from './errors.js'
import { type Runner, runnerSpawnOptions, serverRunner } from './runner.js'

export interface StartOptions extends BinaryOptions {
  /** Start a server even when `BRIDLE_TEST_PG_URL` names an external one (a test that stops and restarts its own). */
  own?: boolean
  /** Durability of the server's own files (default off: tests kill processes, never the machine). */
  fsync?: boolean
  /** Receives the server's log lines (default: dropped). */
  log?: (line: string) => void
  port?: number
  /** How long `initdb` and the start may take before they count as failed (default 120 s). */
  timeoutMs?: number
}

export interface TestServer {
  url: string
  port: number
  /** True when `BRIDLE_TEST_PG_URL` named a server that this process did not start. */
  external: boolean
  dataDir: string
  /** Stops the server cleanly and removes its data folder. */
  stop(): Promise<void>
  /** `pg_ctl stop -m immediate`: the server quits at once, without a shutdown checkpoint. */
  crash(): Promise<void>
  /** Starts the server again over the same data folder (crash recovery replays the WAL). */
  restart(): Promise<void>
}

const PASSWORD = 'bridle-test'
// The readiness line is matched in English whatever the machine's locale is.
const CHILD_ENV = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C', LANG: 'C' }

/** A free TCP port on the loopback interface (the kernel picks it; the socket is closed at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** Runs `initdb` as `runner`; rejects with its output when it fails. */
async function initdb(binaries: PostgresBinaries, runner: Runner, dataDir: string, timeoutMs: number): Promise<void> {
  const passwordFile = join(dataDir, '..', 'password')
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 })
  if (runner.switched) chownSync(passwordFile, runner.uid, runner.gid)
  const args = [
    `--pgdata=${dataDir}`,
    '--auth=password',
    '--username=postgres',
    `--pwfile=${passwordFile}`,
    '--encoding=UTF8',
    '--no-locale',
    '--no-sync',
  ]
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        binaries.initdb,
        args,
        { ...runnerSpawnOptions(runner), env: CHILD_ENV, timeout: timeoutMs },
        (error, _stdout, stderr) => {
          if (!error) return resolve()
          const detail = String(stderr).trim() || error.message
          reject(
            new PostgresStartError(`PostgreSQL cannot start: initdb failed for ${dataDir}: ${detail}`, { dataDir }),
          )
        },
      )
    })
  } finally {
    rmSync(passwordFile, { force: true })
  }
}

/** Spawns the server and resolves once it accepts connections; on failure the process is gone and the error says why. */
function launch(
  binaries: PostgresBinaries,
  runner: Runner,
  args: string[],
  log: (line: string) => void,
  timeoutMs: number,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(binaries.postgres, args, { ...runnerSpawnOptions(runner), env: CHILD_ENV, stdio: 'pipe' })
    let output = ''
    let settled = false
    const fail = (why: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill('SIGKILL')
      const tail = output.trim().split('\n').slice(-5).join('\n')
      reject(
        new PostgresStartError(`PostgreSQL cannot start: ${why}${tail ? `\n${tail}` : ''}`, {
          binary: binaries.postgres,
        }),
      )
    }
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs)
    child.on('error', (error) =>
      fail(`${binaries.postgres} could not be started as user "${runner.name}": ${error.message}`),
    )
    child.on('exit', (code, signal) => fail(`the server exited during start-up (${signal ?? `code ${code}`})`))
    child.stdout?.on('data', (chunk: Buffer) => log(String(chunk)))
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = String(chunk)
      output += text
      log(text)
      if (!settled && output.includes('database system is ready to accept connections')) {
        settled = true
        clearTimeout(timer)
        resolve(child)
      }
    })
  })
}

function exited(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/**
 * Starts a throwaway server on a free loopback port in a fresh data folder under the OS temp dir, and returns its
 * connection string and controls. `BRIDLE_TEST_PG_URL` points everything at an external server instead (nothing is
 * started or stopped). Whatever fails, nothing is left behind: the process is killed and the folder removed.
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const external = options.own ? undefined : process.env.BRIDLE_TEST_PG_URL
  if (external) {
    const unsupported = async () => {
      throw new Error('BRIDLE_TEST_PG_URL points at an external server: this test cannot stop or restart it')
    }
    return {
      url: external,
      port: 0,
      external: true,
      dataDir: '',
      stop: async () => {},
      crash: unsupported,
      restart: unsupported,
    }
  }
  const timeoutMs = options.timeoutMs ?? 120_000
  const log = options.log ?? (() => {})
  const runner = await serverRunner()
  const binaries = runnableBinaries(runner, options)
  const port = options.port ?? (await freePort())
  const parent = mkdtempSync(join(tmpdir(), 'bridle-pg-'))
  // The server may run as another account (`postgres` under root): it must be able to reach its data folder.
  chmodSync(parent, 0o755)
  const dataDir = join(parent, 'data')
  let child: ChildProcess | undefined
  const killOnExit = () => child?.kill('SIGKILL')
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    ...['-c', `fsync=${options.fsync ? 'on' : 'off'}`, '-c', 'max_connections=400'],
    ...['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dataDir}`],
  ]
  try {
    mkdirSync(dataDir, { mode: 0o700 })
    if (runner.switched) chownSync(dataDir, runner.uid, runner.gid)
    await initdb(binaries, runner, dataDir, timeoutMs)
    child = await launch(binaries, runner, args, log, timeoutMs)
    process.once('exit', killOnExit)
  } catch (error) {
    rmSync(parent, { recursive: true, force: true })
    if (error instanceof PostgresStartError) error.details.dataDir = dataDir
    throw error
  }
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    external: false,
    dataDir,
    async stop() {
      process.off('exit', killOnExit)
      const done = exited(child)
      child?.kill('SIGINT')
      await done
      rmSync(parent, { recursive: true, force: true })
    },
    async crash() {
      const done = exited(child)
      await new Promise<void>((resolve, reject) => {
        execFile(binaries.pgCtl, ['stop', '-m', 'immediate', '-D', dataDir], runnerSpawnOptions(runner), (error) =>
          error ? reject(error) : resolve(),
        )
      })
      await done
    },
    async restart() {
      child = await launch(binaries, runner, args, log, timeoutMs)
    },
  }
}
