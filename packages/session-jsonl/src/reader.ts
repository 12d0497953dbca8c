import { basename } from 'node:path'
import { Session, SessionPersistenceCorruptionError } from '@bridle/session'
import type { SessionEvent, SessionHeader, SessionRecoveryReport } from '@bridle/session'
import { isNotFound, type FsLayer } from './fs-layer.js'
import { HeaderDefect, parseHeader } from './header.js'
import type { StoredMeta } from './line-format.js'
import { readStable, revisionOf } from './read-stable.js'
import { recoveryOf } from './recovery.js'
import { CommittedDamage, scanEvents } from './scan.js'
import type { StoredLog } from './stored-log.js'
import { formatUnsupported, validateStoredEvents } from './stored-validation.js'

export type { StoredLog } from './stored-log.js'

/** A validated, balanced view: stored events plus the closers that end an interrupted turn. */
export interface BalancedLog {
  readonly meta: SessionHeader
  readonly events: readonly SessionEvent[]
  readonly closers: readonly SessionEvent[]
  /** What the view leaves out past the committed prefix; `undefined` when the file ends there. */
  readonly recovery: SessionRecoveryReport | undefined
  /** The session built from `events` while validating them: building it in restore mode is the validation. */
  readonly session: Session
}

/**
 * Builds the session a validation checks `events` with: by default a detached `Session.fromRestore`. A resume passes
 * the store's `prepare` instead, so the session it hands out is the one that was validated and the log is checked
 * once, not once here and again when the store builds its session.
 */
export type SessionBuilder = (events: readonly SessionEvent[], meta: SessionHeader) => Session

const restoreDetached: SessionBuilder = (events, meta) => Session.fromRestore(meta.id, events, { ...meta })

/** Builds a `SessionFormatUnsupportedError` for a jsonl file. */

function headerError(defect: HeaderDefect, path: string): Error {
  if (defect.kind === 'format') return formatUnsupported(defect.message, { kind: 'jsonl', location: path })
  return new SessionPersistenceCorruptionError(defect.message, { cause: defect, path, line: 1 })
}

/**
 * The read side of the backend (docs/persistence.md#the-committed-region): revision-stable reads, header and scan
 * rules, identity, and the post-scan validation. Reads never write.
 */
export class LogReader {
  constructor(
    private readonly fs: FsLayer,
    private readonly root: string,
    private readonly extraEventTypes: ReadonlySet<string>,
  ) {}

  /**
   * Reads and scans the log of `id` at `path`. Rejects with `session "<id>" not found` for a missing file, with
   * `SessionPersistenceCorruptionError` (carrying `path`) for header, identity or committed-region damage, and with
   * `SessionFormatUnsupportedError` for a foreign format version.
   */
  async read(id: string, path: string, signal?: AbortSignal): Promise<StoredLog> {
    let read: Awaited<ReturnType<typeof readStable>>
    try {
      read = await readStable(this.fs, this.root, path, signal)
    } catch (error) {
      if (isNotFound(error)) throw new Error(`session "${id}" not found`)
      throw error
    }
    const { bytes, revision } = read
    let parsed: ReturnType<typeof parseHeader>
    try {
      parsed = parseHeader(bytes)
    } catch (error) {
      if (error instanceof HeaderDefect) throw headerError(error, path)
      throw error
    }
    if (parsed.meta.id !== id) {
      throw new SessionPersistenceCorruptionError(
        `stored session identity mismatch: requested "${id}", header contains "${parsed.meta.id}"`,
        { path },
      )
    }
    try {
      const scan = scanEvents(bytes, parsed.headerEnd, parsed.seal)
      const { events, committedBytes, running } = scan
      return { path, meta: parsed.meta, events, committedBytes, size: bytes.length, revision, scan, running }
    } catch (error) {
      if (error instanceof CommittedDamage) {
        throw new SessionPersistenceCorruptionError(error.message, { cause: error, path, line: error.line })
      }
      throw error
    }
  }

  /**
   * Validates a scanned log and computes its closers: legacy vocabulary, then unknown
   * non-ignorable types (`SessionFormatUnsupportedError`, never wrapped), then a full `Session.fromRestore` of the
   * balanced events (through `build`; the view keeps the session it built). Failures of the first and last check are
   * wrapped as `stored session "<id>" failed validation: <err>`. The returned events are frozen in place.
   */
  validate(stored: StoredLog, build: SessionBuilder = restoreDetached): BalancedLog {
    const meta = stored.meta as SessionHeader
    const { balanced, closers, built } = validateStoredEvents(
      meta.id,
      stored.events as unknown as SessionEvent[],
      { kind: 'jsonl', location: stored.path },
      this.extraEventTypes,
      (events) => build(events, meta),
    )
    return { meta, events: Object.freeze(balanced), closers, recovery: recoveryOf(stored), session: built }
  }

  /**
   * Reads only the header of one file (for `list`): returns its meta and a revision taken around the read, retrying
   * until the file did not change meanwhile.
   */
  async readHeader(path: string, signal?: AbortSignal): Promise<{ meta: StoredMeta; revision: string }> {
    for (;;) {
      signal?.throwIfAborted()
      const before = await this.fs.stat(path)
      const head = await this.firstLine(path)
      const after = await this.fs.stat(path)
      const revision = revisionOf(this.root, before)
      if (revision !== revisionOf(this.root, after)) continue
      try {
        return { meta: parseHeader(head).meta, revision }
      } catch (error) {
        if (error instanceof HeaderDefect) throw headerError(error, path)
        throw error
      }
    }
  }

  /** Reads the whole file of `id` revision-stably; `undefined` when absent; a corrupt header rejects. */
  async readRaw(
    id: string,
    path: string,
    signal?: AbortSignal,
  ): Promise<{ header: SessionHeader; fileName: string; content: string } | undefined> {
    let bytes: Uint8Array
    try {
      bytes = (await readStable(this.fs, this.root, path, signal)).bytes
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
    let meta: StoredMeta
    try {
      meta = parseHeader(bytes).meta
    } catch (error) {
      if (error instanceof HeaderDefect) throw headerError(error, path)
      throw error
    }
    if (meta.id !== id) {
      throw new SessionPersistenceCorruptionError(
        `stored session identity mismatch: requested "${id}", header contains "${meta.id}"`,
        { path },
      )
    }
    return {
      header: Object.freeze({ ...meta }) as SessionHeader,
      fileName: basename(path),
      content: new TextDecoder().decode(bytes),
    }
  }

  /** The bytes of a file up to and including its first `\n` (all of it when there is none). */
  private async firstLine(path: string): Promise<Uint8Array> {
    const handle = await this.fs.open(path, 'r')
    try {
      const chunks: Uint8Array[] = []
      let position = 0
      for (;;) {
        const chunk = new Uint8Array(4096)
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position)
        if (bytesRead === 0) break
        const view = chunk.subarray(0, bytesRead)
        chunks.push(view)
        position += bytesRead
        if (view.includes(0x0a)) break
      }
      return Buffer.concat(chunks)
    } finally {
      await handle.close()
    }
  }
}
