import { join } from 'node:path'
import type { SessionHeader, SessionSnapshotInfo } from '@bridle/session'
import { type FsLayer, isNotFound } from './fs-layer.js'
import type { LogReader } from './reader.js'

/**
 * `{meta, revision}` for every `.jsonl` log under `root`, sorted by `createdAt`, then id. A missing root gives `[]`;
 * a log whose header cannot be read is skipped with a warning; an abort rejects.
 */
export async function listStoredSessions(
  fs: FsLayer,
  root: string,
  reader: LogReader,
  warn: (message: string) => void,
  signal?: AbortSignal,
): Promise<readonly SessionSnapshotInfo[]> {
  let names: string[]
  try {
    names = await fs.readdir(root)
  } catch (error) {
    if (isNotFound(error)) return Object.freeze([])
    throw error
  }
  const out: SessionSnapshotInfo[] = []
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue
    signal?.throwIfAborted()
    const path = join(root, name)
    try {
      const { meta, revision } = await reader.readHeader(path, signal)
      out.push(Object.freeze({ meta: Object.freeze({ ...meta }) as SessionHeader, revision }))
    } catch (error) {
      if (signal?.aborted) throw error
      if (isNotFound(error)) continue
      warn(`session-jsonl: skipping "${path}": ${String(error)}`)
    }
  }
  out.sort(
    (a, b) => a.meta.createdAt - b.meta.createdAt || (a.meta.id < b.meta.id ? -1 : a.meta.id > b.meta.id ? 1 : 0),
  )
  return Object.freeze(out)
}
