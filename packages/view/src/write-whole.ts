import { randomBytes } from 'node:crypto'
import { rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

/** A file `writeWhole` could not write; its message names the file and says why in words, never a temporary name. */
export class WriteWholeError extends Error {
  override name = 'WriteWholeError'
  constructor(
    readonly file: string,
    /** The Node error code (`ENOENT`, `EACCES`, …), when there was one. */
    readonly code: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** Why a write into `file` failed, in words: the folder that is missing, the permission that is lacking. */
function reasonOf(error: unknown, file: string): string {
  const code = (error as NodeJS.ErrnoException).code
  const folder = dirname(file)
  switch (code) {
    case 'ENOENT':
      return `the folder ${folder} does not exist`
    case 'ENOTDIR':
      return `${folder} is not a folder`
    case 'EISDIR':
      return `${file} is a folder`
    case 'EACCES':
    case 'EPERM':
      return `no permission to write in ${folder}`
    case 'EROFS':
      return `${folder} is on a read-only file system`
    case 'ENOSPC':
      return 'no space left on the device'
    default:
      return (error as Error).message ?? String(error)
  }
}

/**
 * Writes `data` to `file` whole or not at all: into a temporary file beside it, then renamed into place, so a reader
 * never sees half a file and a failed write leaves nothing behind. Rejects with a `WriteWholeError` that names
 * `file` (never the temporary name) and the reason in words.
 */
export async function writeWhole(file: string, data: string | Uint8Array): Promise<void> {
  const target = resolve(file)
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    await writeFile(temporary, data)
    await rename(temporary, target)
  } catch (error) {
    // nothing to remove when the folder itself is missing or not a folder
    await rm(temporary, { force: true }).catch(() => {})
    const code = (error as NodeJS.ErrnoException).code
    throw new WriteWholeError(file, code, `cannot write ${file}: ${reasonOf(error, target)}`, { cause: error })
  }
}
