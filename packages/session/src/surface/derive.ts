/**
 * Projection of surface nodes into model messages (docs/surface-and-reconstruction.md#deriving-messages).
 */
import { extendHistory, type Message, isRecord } from '@bridle/llm'
import type { AnySessionEvent } from '../events/events.js'
import type { SurfacePlan } from './surface.js'

/**
 * The message a single surface node contributes: `data` for `user/message`, `data.message` for `tool/result` and
 * for a non-empty `assistant/message`, `null` otherwise. Ignores `surfaceOp`. Returns the log's own frozen object.
 */
export function deriveEventMessage(event: AnySessionEvent): Message | null {
  switch (event.type) {
    case 'user/message':
      return event.data as Message
    case 'assistant/message': {
      const message = isRecord(event.data) ? event.data.message : undefined
      if (!isRecord(message) || !Array.isArray(message.content) || message.content.length === 0) return null
      return message as unknown as Message
    }
    case 'tool/result': {
      const message = isRecord(event.data) ? event.data.message : undefined
      return isRecord(message) ? (message as unknown as Message) : null
    }
    default:
      return null
  }
}

/**
 * The incremental cache behind `session.deriveMessages()`: an entry list aligned with the surface nodes. An append
 * projects only the new node; a replace splices the aligned list and projects only the replacement. Events are
 * never re-read. `messages()` returns the same frozen array while nothing changed, else one new frozen array built
 * with a single reference copy.
 */
export class MessageProjection {
  private readonly entries: (Message | null)[] = []
  private cached: readonly Message[] = Object.freeze([])
  private dirty = false
  /**
   * Messages appended since `cached` was built, while only appends happened; `undefined` means the next build reads
   * every entry (after a replace, and before the first build, so seeding does not collect a second list).
   */
  private appended: Message[] | undefined
  /** How many messages the history holds now (non-null entries), kept as entries change. */
  count = 0

  /** Mirrors an applied surface plan for `event`. */
  apply(plan: SurfacePlan, event: AnySessionEvent): void {
    if (plan.kind === 'none') return
    const projected = deriveEventMessage(event)
    if (plan.kind === 'append') {
      this.entries.push(projected)
      if (projected !== null) {
        this.count++
        this.dirty = true
        this.appended?.push(projected)
      }
      return
    }
    const removed = this.entries.splice(plan.startIndex, plan.endIndex - plan.startIndex + 1, projected)
    for (const entry of removed) if (entry !== null) this.count--
    if (projected !== null) this.count++
    if (projected !== null || removed.some((entry) => entry !== null)) {
      this.dirty = true
      this.appended = undefined
    }
  }

  /** The array the last `messages()` call returned, without building a newer one. */
  get built(): readonly Message[] {
    return this.cached
  }

  /**
   * The non-null projections in node order, as a frozen array shared with the log's messages. After appends only, the
   * new array is `extendHistory(previous, appended)`, so per-step consumers know it extends the previous one.
   */
  messages(): readonly Message[] {
    if (this.dirty) {
      if (this.appended !== undefined) {
        this.cached = extendHistory(this.cached, this.appended)
      } else {
        const out: Message[] = []
        for (const entry of this.entries) if (entry !== null) out.push(entry)
        this.cached = Object.freeze(out)
      }
      this.appended = []
      this.dirty = false
    }
    return this.cached
  }
}
