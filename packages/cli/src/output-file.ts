import { statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { RuntimeFailure, UsageError } from './errors.js'

/** What to do about an output path whose folder is missing or not a folder. */
const FOLDER_HINT = 'create the folder first, or name a file in one that exists'

/**
 * Checks, before anything is read or computed, that `file` (given with `flag`) can be written: its folder exists and
 * it is not itself a folder. A usage error (exit 2) naming the flag, the path as typed and what to do.
 */
export function checkOutputFile(flag: string, file: string): void {
  const target = resolve(file)
  const folder = dirname(target)
  let stats: ReturnType<typeof statSync> | undefined
  try {
    stats = statSync(folder)
  } catch {}
  if (stats === undefined) throw new UsageError(`${flag} ${file}: the folder ${folder} does not exist (${FOLDER_HINT})`)
  if (!stats.isDirectory()) throw new UsageError(`${flag} ${file}: ${folder} is not a folder (${FOLDER_HINT})`)
  let isFolder = false
  try {
    isFolder = statSync(target).isDirectory()
  } catch {}
  if (isFolder) throw new UsageError(`${flag} ${file}: that is a folder; name a file to write`)
}

/**
 * Writes `data` to `file` whole or not at all (`@bridle/view`'s `writeWhole`, the one atomic write of the CLI and the
 * viewer). A failure is a runtime failure (exit 1) naming the flag and the file in words, never a temporary name.
 */
export async function writeOutputFile(flag: string, file: string, data: string | Uint8Array): Promise<void> {
  const { writeWhole, WriteWholeError } = await import('@bridle/view')
  try {
    await writeWhole(file, data)
  } catch (error) {
    if (error instanceof WriteWholeError) throw new RuntimeFailure(`${flag} ${error.message}`, { cause: error })
    throw error
  }
}
