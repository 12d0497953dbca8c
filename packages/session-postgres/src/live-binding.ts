import type { Session, SessionEvent } from '@bridle/session'
import { type BindingCoreContext, type BindingCoreStart, LiveBindingCore } from '@bridle/session-jsonl'
import { isUnavailable } from './database.js'
import { SessionStoreUnavailableError } from './errors.js'
import { append, FatalWriteError, ownPublication, publish, type WriteContext } from './writer.js'

/** What a binding needs from its backend. */
export interface BindingContext extends BindingCoreContext {
  readonly write: WriteContext
  readonly warn: (message: string) => void
  /** The binding now holds the lease with `token` (publication or adoption): start renewing it. */
  readonly leased: (binding: LiveBinding, token: number) => void
  /** A write failed because the database was unreachable: schedule a retry of `binding`. */
  readonly unavailable: (binding: LiveBinding) => void
}

/** Where a binding starts: a new session, or one whose first `cursor` events are stored and whose lease it holds. */
export interface BindingStart extends BindingCoreStart {
  /** The fencing token of the lease this binding holds (a prepared or adopted session). */
  readonly token?: number
}

/**
 * One live session bound to its rows: the lease token it writes with, the posted-message ids its log already holds,
 * and whether the database is unreachable. A fatal write (a lost lease, foreign rows) poisons the binding.
 */
export class LiveBinding extends LiveBindingCore<BindingContext> {
  /** The lease token, once the binding holds a lease. */
  token: number | undefined
  /** Posted-message ids already spliced into this session's log, with the seq of the splice. */
  readonly seen = new Map<string, number>()
  /** True while the last write failed because the database was unreachable (warned once per outage). */
  outage = false
  /** When (`performance.now()`) the latest delivery pass for this binding sent its read of the waiting messages. */
  deliveryReadAt: number | undefined

  constructor(session: Session, start: BindingStart, ctx: BindingContext) {
    super(session, start, ctx)
    this.token = start.token
    for (const event of session.events) this.observe(event)
  }

  /** Re-bases the binding after a successful adoption: the first `cursor` live events are stored, under `token`. */
  adopted(cursor: number, token: number | undefined): void {
    this.rebase(cursor, token !== undefined)
    this.token = token
  }

  /** Notes the posted-message ids a splice carries. */
  protected override observe(event: SessionEvent): void {
    if ((event.type as string) !== 'agent/inbox/spliced') return
    const inserted = (event.data as { inserted?: readonly { id?: unknown }[] } | null)?.inserted
    if (!Array.isArray(inserted)) return
    for (const message of inserted)
      if (typeof message?.id === 'string' && !this.seen.has(message.id)) this.seen.set(message.id, event.seq)
  }

  protected override backgroundFailed(error: unknown): void {
    if (error instanceof SessionStoreUnavailableError) return // warned once per outage; a retry is scheduled
    this.ctx.warn(
      `session-postgres: background write for session "${this.session.id}" failed (buffered events retained): ${String(error)}`,
    )
  }

  protected override async write(events: readonly SessionEvent[], batch: readonly SessionEvent[]): Promise<void> {
    try {
      if (!this.materialized) await this.publishFirst(events)
      else await append(this.ctx.write, this.session.id, this.token!, this.durableCount, events)
    } catch (error) {
      if (error instanceof FatalWriteError) {
        this.poisoned = error.error
        throw error.error
      }
      if (isUnavailable(error)) {
        const unavailable = new SessionStoreUnavailableError(
          this.session.id,
          this.queue.pendingCount + batch.length,
          error,
        )
        if (!this.outage) this.ctx.warn(unavailable.message)
        this.outage = true
        this.ctx.unavailable(this)
        throw unavailable
      }
      throw error
    }
    if (this.outage)
      this.ctx.warn(`session-postgres: session "${this.session.id}" is written again; the database is back`)
    this.outage = false
  }

  private async publishFirst(events: readonly SessionEvent[]): Promise<void> {
    // 'exists' after a publication whose answer was lost (the server died right after committing) is our own row.
    if ((await publish(this.ctx.write, this.meta, events)) === 'exists') {
      const stored = await ownPublication(this.ctx.write, this.meta, events)
      if (stored === undefined) {
        const error = new Error(
          `session "${this.session.id}" already exists in the database; load/resume it instead of creating`,
        )
        this.sticky = error
        throw error
      }
      this.materialized = true
      this.token = 1
      this.ctx.leased(this, 1)
      if (stored < events.length) await append(this.ctx.write, this.session.id, 1, stored, events.slice(stored))
      return
    }
    this.materialized = true
    this.token = 1
    this.ctx.leased(this, 1)
  }
}
