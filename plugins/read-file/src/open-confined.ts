import { constants } from 'node:fs'
import { open, readlink, stat, type FileHandle } from 'node:fs/promises'
import { ReadFileError } from './errors.js'
import { isInside, resolveInWorkspace } from './confine.js'

/** A regular file opened inside the workspace. The caller closes `handle`. */
export interface ConfinedFile {
  readonly handle: FileHandle
  /** Where the opened descriptor lies (the kernel's answer on Linux; the checked real path elsewhere). */
  readonly path: string
}

/** Where descriptor `fd` points according to the kernel, or `undefined` when the system cannot say. */
export type LocateDescriptor = (fd: number) => Promise<string | undefined>

/**
 * Where the kernel says descriptor `fd` points, from `/proc/self/fd/<fd>` (Linux). `undefined` when this system has
 * no such directory (macOS, BSD, a container without /proc).
 */
async function procDescriptorPath(fd: number): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${fd}`)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM') return undefined
    throw e
  }
}

/** The kernel marks a descriptor whose file was unlinked after it was opened; the location is still the old one. */
const DELETED = ' (deleted)'

function disappeared(requested: string, cause: unknown): ReadFileError {
  return new ReadFileError(`file not found: "${requested}" (it disappeared while being opened)`, 'NOT_FOUND', { cause })
}

function escaped(requested: string): ReadFileError {
  return new ReadFileError(
    `path "${requested}" led outside the workspace while it was being opened (a symlink was swapped in); refused`,
    'OUTSIDE_WORKSPACE',
  )
}

/**
 * Opens a model-supplied path confined to the workspace, in a way that holds under races. The path is first checked
 * like `confineToWorkspace`; special files are refused without being opened; then the real path is opened with
 * `O_NOFOLLOW` and the **opened descriptor** is proven to lie inside the workspace's real root:
 *
 * - on Linux by reading `/proc/self/fd/<fd>`, the kernel's own record of what was opened, so a directory swapped
 *   for a symlink between the check and the open is caught whatever component it was;
 * - without `/proc`, by comparing the descriptor's device and inode with a fresh `stat` of the checked real path
 *   (this catches a swap that is still in place at that moment, not one swapped back in between).
 *
 * Returns the open handle (the caller closes it) or throws `ReadFileError` (`OUTSIDE_WORKSPACE`, `NOT_FOUND`,
 * `NOT_A_FILE`, `UNREADABLE`); on a throw nothing stays open.
 */
export function openInWorkspace(root: string, requested: string): Promise<ConfinedFile> {
  return openConfined(root, requested, procDescriptorPath)
}

/** {@link openInWorkspace} with the descriptor lookup given (tests force the no-/proc fallback through it). */
export async function openConfined(root: string, requested: string, locate: LocateDescriptor): Promise<ConfinedFile> {
  const { real, realRoot } = await resolveInWorkspace(root, requested)
  const before = await statOrExplain(real, requested)
  if (before.isDirectory()) throw new ReadFileError(`"${requested}" is a directory, not a file`, 'NOT_A_FILE')
  if (!before.isFile()) throw new ReadFileError(`"${requested}" is not a regular file`, 'NOT_A_FILE')
  let handle: FileHandle
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    // O_NOFOLLOW: the last component became a symlink after the check.
    if (code === 'ELOOP') throw escaped(requested)
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw disappeared(requested, e)
    }
    throw new ReadFileError(`cannot open "${requested}": ${(e as Error).message}`, 'UNREADABLE', { cause: e })
  }
  try {
    const opened = await locate(handle.fd)
    const info = await handle.stat()
    let path: string
    if (opened !== undefined) {
      path = opened.endsWith(DELETED) ? opened.slice(0, -DELETED.length) : opened
      if (!isInside(realRoot, path)) throw escaped(requested)
    } else {
      const now = await stat(real).catch(() => undefined)
      if (now === undefined || now.dev !== info.dev || now.ino !== info.ino) throw escaped(requested)
      path = real
    }
    if (info.isDirectory()) throw new ReadFileError(`"${requested}" is a directory, not a file`, 'NOT_A_FILE')
    if (!info.isFile()) throw new ReadFileError(`"${requested}" is not a regular file`, 'NOT_A_FILE')
    return { handle, path }
  } catch (e) {
    await handle.close().catch(() => undefined)
    throw e
  }
}

async function statOrExplain(real: string, requested: string) {
  try {
    return await stat(real)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw disappeared(requested, e)
    }
    throw new ReadFileError(`cannot read "${requested}": ${(e as Error).message}`, 'UNREADABLE', { cause: e })
  }
}
