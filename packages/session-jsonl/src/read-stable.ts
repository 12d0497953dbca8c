import type { BigIntStats } from 'node:fs'
import type { FsLayer } from './fs-layer.js'

/** One revision-stable read of a log file. */
export interface StableRead {
  readonly bytes: Uint8Array
  readonly revision: string
}

/**
 * The opaque revision of a file: `jsonl:<root>:<dev>:<ino>:<size>:<mtimeNs>:<ctimeNs>`. Any append, truncation or
 * replacement changes it.
 */
export function revisionOf(root: string, stats: BigIntStats): string {
  return `jsonl:${root}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
}

/**
 * Reads a whole file between two stats and retries until both stats agree (and the byte count matches), so the
 * result is one consistent revision even while another writer appends. `signal` aborts the retry loop. A missing
 * file rejects with the filesystem's ENOENT error; callers translate it.
 */
export async function readStable(
  layer: FsLayer,
  root: string,
  path: string,
  signal?: AbortSignal,
): Promise<StableRead> {
  for (;;) {
    signal?.throwIfAborted()
    const before = await layer.stat(path)
    const bytes = await layer.readFile(path)
    const after = await layer.stat(path)
    const revision = revisionOf(root, before)
    if (revision === revisionOf(root, after) && BigInt(bytes.length) === after.size) return { bytes, revision }
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

/** Stats a file and returns its revision, or `undefined` when it is missing. */
export async function currentRevision(layer: FsLayer, root: string, path: string): Promise<string | undefined> {
  try {
    return revisionOf(root, await layer.stat(path))
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ENOENT') return undefined
    throw error
  }
}
