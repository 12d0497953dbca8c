import { randomBytes } from 'node:crypto'
import { ensureRoot, isNotFound, writeAll, type FsLayer } from './fs-layer.js'

const rollbackFailures = new WeakSet<object>()

/**
 * True for the `AggregateError` thrown when a failed append could not be rolled back. Such a failure poisons the
 * session: the file may hold a fragment that only a reload's torn-tail scan can remove.
 */
export function isRollbackFailure(error: unknown): error is AggregateError {
  return typeof error === 'object' && error !== null && rollbackFailures.has(error)
}

function rollbackFailure(writeError: unknown, rollbackError: unknown, path: string): AggregateError {
  const error = new AggregateError([writeError, rollbackError], `failed to roll back append to "${path}"`)
  rollbackFailures.add(error)
  return error
}

/**
 * Atomic first publication (docs/persistence.md#atomic-creation-and-rollback): create the root, write header + first
 * batch to a fresh temp file, fsync it, `link()` it to the final name (which fails instead of clobbering an existing
 * log), fsync the root, and remove the temp file (best-effort). Until the link succeeds the session file does not
 * exist; if anything after the link fails, the link is undone so a retry starts from the same state.
 */
export async function publishFile(
  layer: FsLayer,
  root: string,
  path: string,
  id: string,
  bytes: Uint8Array,
): Promise<void> {
  await ensureRoot(layer, root)
  if (await exists(layer, path)) throw alreadyExists(id)
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await layer.open(temp, 'wx', 0o600)
  try {
    try {
      await writeAll(handle, bytes, 0)
      await handle.sync()
    } finally {
      await handle.close()
    }
    try {
      await layer.link(temp, path)
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'EEXIST') throw alreadyExists(id)
      throw error
    }
    try {
      await layer.syncDir(root)
    } catch (error) {
      try {
        await layer.unlink(path)
      } catch (rollbackError) {
        throw rollbackFailure(error, rollbackError, path)
      }
      throw error
    }
  } finally {
    await layer.unlink(temp).catch(() => undefined)
  }
}

function alreadyExists(id: string): Error {
  return new Error(`refusing to materialize "${id}": a log already exists on disk (load/resume it instead)`)
}

async function exists(layer: FsLayer, path: string): Promise<boolean> {
  try {
    await layer.stat(path)
    return true
  } catch (error) {
    if (isNotFound(error)) return false
    throw error
  }
}

/**
 * Appends one batch with one write and one fsync. The file's size is recorded first; if the write or the fsync
 * fails, the file is truncated back to that size and fsynced, and the original error is rethrown, so a retry can
 * never duplicate a seq. If the rollback itself fails, throws `AggregateError([writeError, rollbackError],
 * 'failed to roll back append to "<path>"')` (see `isRollbackFailure`).
 */
export async function appendFile(layer: FsLayer, path: string, bytes: Uint8Array): Promise<void> {
  const handle = await layer.open(path, 'r+')
  let size: number
  try {
    size = (await handle.stat()).size
  } catch (error) {
    await handle.close().catch(() => undefined)
    throw error
  }
  try {
    await writeAll(handle, bytes, size)
    await handle.sync()
  } catch (error) {
    try {
      await handle.truncate(size)
      await handle.sync()
    } catch (rollbackError) {
      await handle.close().catch(() => undefined)
      throw rollbackFailure(error, rollbackError, path)
    }
    await handle.close().catch(() => undefined)
    throw error
  }
  // The bytes are durable once fsync returned; a failing close cannot undo that.
  await handle.close().catch(() => undefined)
}

/**
 * Commits a crash repair (docs/persistence.md#repair-and-recovery-reports): truncate to `committedBytes`, fsync, append
 * the closer lines, fsync. The two steps are not atomic; a crash between them is healed by the next load because
 * closers are deterministic.
 */
export async function repairFile(
  layer: FsLayer,
  path: string,
  committedBytes: number,
  closers: Uint8Array,
): Promise<void> {
  const handle = await layer.open(path, 'r+')
  try {
    await handle.truncate(committedBytes)
    await handle.sync()
    if (closers.length > 0) {
      await writeAll(handle, closers, committedBytes)
      await handle.sync()
    }
  } finally {
    await handle.close()
  }
}
