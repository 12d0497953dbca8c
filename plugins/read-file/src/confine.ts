import { realpath, stat } from 'node:fs/promises'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { ReadFileError } from './errors.js'

/** The agent a call runs for, structurally: only its session header's `cwd` is read. */
export interface WorkspaceAgent {
  readonly session?: { readonly header?: { readonly cwd?: string } }
}

/**
 * The workspace root for one call: the configured `root`, else the agent's cwd from its session header, else the
 * process cwd. A configured root wins because it is the operator's confinement decision.
 */
export function workspaceRootOf(configuredRoot: string | undefined, agent: WorkspaceAgent | undefined): string {
  if (configuredRoot !== undefined) return resolve(configuredRoot)
  const cwd = agent?.session?.header?.cwd
  return typeof cwd === 'string' && isAbsolute(cwd) ? resolve(cwd) : process.cwd()
}

/** True when `target` is `root` itself or lies below it (both absolute and normalized). */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** A confined path: the real location to open and the real workspace root it lies in. */
export interface ConfinedPath {
  readonly real: string
  readonly realRoot: string
}

/**
 * A trailing `/` (or `/.`) says the path names a directory. `path.resolve` would drop it, so it is looked at before
 * resolving: the kernel would refuse `file.txt/` with ENOTDIR, and so does `read_file`.
 */
function namesDirectory(requested: string): boolean {
  return /[/\\]\.?$/.test(requested) && !/^[/\\]+\.?$/.test(requested)
}

/**
 * The lexical and real-path checks of {@link confineToWorkspace}, also returning the real root (the descriptor check
 * in `open-confined.ts` compares against it).
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<ConfinedPath> {
  if (requested.includes('\0'))
    throw new ReadFileError(`path "${requested.replace(/\0/g, '\\0')}" contains a NUL byte`, 'OUTSIDE_WORKSPACE')
  const lexical = isAbsolute(requested) ? resolve(requested) : resolve(root, requested)
  let realRoot: string | undefined
  let rootError: unknown
  try {
    realRoot = await realpath(root)
  } catch (e) {
    rootError = e
  }
  // An absolute path may also name the workspace by its real location (a root reached through a symlink, such as
  // macOS's /tmp). Anything else that leaves the root lexically, `..` included, is refused before the requested
  // path is resolved on disk.
  const viaRealRoot = realRoot !== undefined && isAbsolute(requested) && isInside(realRoot, lexical)
  if (!isInside(root, lexical) && !viaRealRoot) {
    throw new ReadFileError(
      `path "${requested}" is outside the workspace (${root}); only files inside it can be read`,
      'OUTSIDE_WORKSPACE',
    )
  }
  if (realRoot === undefined) {
    throw new ReadFileError(`the workspace root ${root} does not exist or cannot be read`, 'NOT_FOUND', {
      cause: rootError,
    })
  }
  let real: string
  try {
    real = await realpath(lexical)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ReadFileError(
        `file not found: "${requested}" (paths are relative to the workspace root ${root})`,
        'NOT_FOUND',
        { cause: e },
      )
    }
    if (code === 'ELOOP') throw new ReadFileError(`path "${requested}" is a symlink loop`, 'UNREADABLE', { cause: e })
    throw new ReadFileError(`cannot resolve "${requested}": ${(e as Error).message}`, 'UNREADABLE', { cause: e })
  }
  if (!isInside(realRoot, real)) {
    throw new ReadFileError(
      `path "${requested}" resolves through a symlink to a location outside the workspace; refused`,
      'OUTSIDE_WORKSPACE',
    )
  }
  if (
    namesDirectory(requested) &&
    !(await stat(real).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    const bare = requested.replace(/[/\\]\.?$/, '')
    const message = `path "${requested}" ends with "/", which names a directory, but "${bare}" is not one`
    throw new ReadFileError(message, 'NOT_A_FILE')
  }
  return { real, realRoot }
}

/**
 * Resolves a model-supplied path inside the workspace, refusing every escape: a relative path that climbs out with
 * `..`, an absolute path elsewhere, and a path whose real location (after following symlinks, at any component)
 * lies outside the workspace's real location. Returns the real path. Throws `ReadFileError`: `OUTSIDE_WORKSPACE`,
 * `NOT_FOUND` when nothing exists there, `NOT_A_FILE` for a file named with a trailing `/`.
 *
 * This is a check on paths, so on its own it can race with a concurrent rename; `openInWorkspace` opens first and
 * then proves where the opened descriptor lies.
 */
export async function confineToWorkspace(root: string, requested: string): Promise<string> {
  const { real } = await resolveInWorkspace(root, requested)
  return real
}
