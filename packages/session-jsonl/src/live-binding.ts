import type { Session, SessionEvent } from '@bridle/session'
import { appendFile, isRollbackFailure, publishFile } from './file-writer.js'
import type { FsLayer } from './fs-layer.js'
import { encodeAppend, encodeNewLog } from './line-format.js'
import { type BindingCoreContext, type BindingCoreStart, LiveBindingCore } from './live-binding-core.js'

/** What a `LiveBinding` needs from the backend that owns it. */
export interface BindingContext extends BindingCoreContext {
  readonly fs: FsLayer
  readonly root: string
  readonly warn: (message: string) => void
}

/** Where a binding starts: a fresh session, or one whose first `cursor` events are already durable on disk. */
export interface BindingStart extends BindingCoreStart {
  readonly path: string
  /** For a materialized sealed log, the running CRC of the whole file; `undefined` for a log without checksums. */
  readonly running?: number
}

/** One live session bound to its JSONL file: the first write publishes the file, later ones append to it. */
export class LiveBinding extends LiveBindingCore<BindingContext> {
  private readonly path: string
  /** The running CRC at the end of the file (sealed logs); appends continue the chain from it. */
  private running: number | undefined

  constructor(session: Session, start: BindingStart, ctx: BindingContext) {
    super(session, start, ctx)
    this.path = start.path
    this.running = start.running
  }

  /**
   * Re-bases the binding after a successful adoption: the first `cursor` live events are already stored, and the
   * file's running CRC is `running` (`undefined` for a log without checksums).
   */
  adopted(cursor: number, running: number | undefined): void {
    this.rebase(cursor, true)
    this.running = running
  }

  protected override backgroundFailed(error: unknown): void {
    this.ctx.warn(
      `session-jsonl: background write for session "${this.session.id}" failed (buffered events retained): ${String(error)}`,
    )
  }

  protected override async write(events: readonly SessionEvent[]): Promise<void> {
    try {
      if (!this.materialized) {
        const encoded = encodeNewLog(this.meta, events)
        await publishFile(this.ctx.fs, this.ctx.root, this.path, this.session.id, encoded.bytes)
        this.materialized = true
        this.running = encoded.running
      } else {
        const encoded = encodeAppend(events, this.running)
        await appendFile(this.ctx.fs, this.path, encoded.bytes)
        this.running = encoded.running
      }
    } catch (error) {
      if (isRollbackFailure(error)) this.poisoned = error
      throw error
    }
  }
}
