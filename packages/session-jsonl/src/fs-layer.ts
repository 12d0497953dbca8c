import * as fs from 'node:fs'
import * as fsp from 'node:fs/promises'
import { dirname } from 'node:path'

/** The subset of a `node:fs/promises` FileHandle that the backend uses. */
export interface FileHandleLike {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>
  write(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesWritten: number }>
  sync(): Promise<void>
  truncate(length: number): Promise<void>
  stat(): Promise<{ size: number }>
  close(): Promise<void>
}

/**
 * Every filesystem call the backend makes goes through this layer, so tests can inject faults (a failing write,
 * fsync or truncate) without touching the real disk semantics. `nodeFs` is the production implementation.
 */
export interface FsLayer {
  open(path: string, flags: string, mode?: number): Promise<FileHandleLike>
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<unknown>
  link(existingPath: string, newPath: string): Promise<void>
  unlink(path: string): Promise<void>
  stat(path: string): Promise<fs.BigIntStats>
  readFile(path: string): Promise<Uint8Array>
  readdir(path: string): Promise<string[]>
  /** fsyncs a directory so a link/unlink/create inside it is durable. */
  syncDir(path: string): Promise<void>
  /** Synchronous existence check, used where the store demands a synchronous veto. */
  existsSync(path: string): boolean
}

/** The production filesystem layer over `node:fs`. */
export const nodeFs: FsLayer = {
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  mkdir: (path, options) => fsp.mkdir(path, options),
  link: (existingPath, newPath) => fsp.link(existingPath, newPath),
  unlink: (path) => fsp.unlink(path),
  stat: (path) => fsp.stat(path, { bigint: true }),
  readFile: (path) => fsp.readFile(path),
  readdir: (path) => fsp.readdir(path),
  async syncDir(path) {
    const handle = await fsp.open(path, 'r')
    try {
      await handle.sync()
    } catch (error) {
      // Some platforms (Windows, a few network filesystems) refuse fsync on a directory; durability of the
      // directory entry then rests on the platform, which is the best any user-space program can do.
      if (!isUnsupportedDirSync(error)) throw error
    } finally {
      await handle.close()
    }
  },
  existsSync: (path) => fs.existsSync(path),
}

function isUnsupportedDirSync(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'EINVAL' || code === 'ENOTSUP' || code === 'EPERM' || code === 'EISDIR'
}

/** Writes all of `bytes` starting at file offset `position`, looping over short writes. */
export async function writeAll(handle: FileHandleLike, bytes: Uint8Array, position: number): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, position + offset)
    if (bytesWritten <= 0) throw new Error(`short write: wrote ${offset} of ${bytes.length} bytes`)
    offset += bytesWritten
  }
}

/** `mkdir -p` the root with mode 0o700, then fsync the root's parent so the new directory entry is durable. */
export async function ensureRoot(layer: FsLayer, root: string): Promise<void> {
  await layer.mkdir(root, { recursive: true, mode: 0o700 })
  await layer.syncDir(dirname(root))
}

/**
 * True when `error` says the file is not there: "no such file or directory", or a name too long for the filesystem
 * (a 5,000-character session id names no file that can exist, so it is not found rather than a raw system error).
 */
export function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'ENOENT' || code === 'ENAMETOOLONG'
}
