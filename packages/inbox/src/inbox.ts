import type { MessageId, UserMessage } from '@bridle/llm'
import type { Session } from '@bridle/session'
import { assertInboxMessage, normalizeDeleteCount, normalizeStart, validateSplice } from './normalize.js'
import { replaySplices } from './replay.js'
import { INBOX_SPLICED, type InboxNotifications, type InboxSplice, type InboxTarget } from './types.js'

/**
 * One agent's pending input: a `next-turn` queue of prompts and a `next-step` queue of steering and
 * context. Every change is first appended to the session as `agent/inbox/spliced`, then applied from the
 * frozen snapshot the session kept, then announced through the owner's notifications. Construction
 * replays the log, so a resumed session has exactly the pending state it had.
 */
export class Inbox {
  readonly #session: Session
  readonly #notify: InboxNotifications
  readonly #lists: Record<InboxTarget, UserMessage[]> = { 'next-turn': [], 'next-step': [] }

  /** Replays every `agent/inbox/spliced` after the session's fork prefix; throws on a bad record. */
  constructor(session: Session, notifications: InboxNotifications) {
    this.#session = session
    this.#notify = notifications
    replaySplices(session, this.#lists)
  }

  /** Pending prompts, oldest first. The live array; do not mutate. */
  get nextTurn(): readonly UserMessage[] {
    return this.#lists['next-turn']
  }

  /** Pending steering and context for the next step, oldest first. The live array; do not mutate. */
  get nextStep(): readonly UserMessage[] {
    return this.#lists['next-step']
  }

  /** Whether either queue holds a message. */
  get hasPending(): boolean {
    return this.#lists['next-turn'].length > 0 || this.#lists['next-step'].length > 0
  }

  /** Adds `message` at the end of `target`. */
  append(target: InboxTarget, message: UserMessage): void {
    this.splice(target, Infinity, 0, [message])
  }

  /** Adds `message` at the front of `target`. */
  prepend(target: InboxTarget, message: UserMessage): void {
    this.splice(target, 0, 0, [message])
  }

  /**
   * `Array.prototype.splice` on one queue, made durable: coordinates are normalized, the record is
   * validated and appended, then the lists change. Returns the removed messages. A call that removes and
   * inserts nothing records nothing.
   */
  splice(target: InboxTarget, start: number, deleteCount: number, inserted: UserMessage[]): UserMessage[] {
    if (target !== 'next-turn' && target !== 'next-step') {
      throw new TypeError(`invalid inbox target ${JSON.stringify(target)} (expected "next-turn" or "next-step")`)
    }
    if (!Array.isArray(inserted)) throw new TypeError('inbox splice inserted must be an array of messages')
    for (const m of inserted) assertInboxMessage(m)
    const len = this.#lists[target].length
    const s = normalizeStart(start, len)
    const removed = normalizeDeleteCount(deleteCount, s, len)
    return this.#commit(target, s, removed, inserted, true)
  }

  /**
   * Replaces the pending message `id` (searched in `next-turn`, then `next-step`) by `message` at the
   * same position, in one canceled record. Returns `false` when `id` is not pending.
   */
  replace(id: MessageId, message: UserMessage): boolean {
    const found = this.#find(id)
    if (!found) return false
    assertInboxMessage(message)
    this.#commit(found.target, found.index, 1, [message], true)
    return true
  }

  /** Removes the pending message `id` in one canceled record. Returns `false` when it is not pending. */
  remove(id: MessageId): boolean {
    const found = this.#find(id)
    if (!found) return false
    this.#commit(found.target, found.index, 1, [], true)
    return true
  }

  /** Empties `next-step`, then `next-turn`: one canceled record per non-empty queue. */
  clear(): void {
    for (const target of ['next-step', 'next-turn'] as const) {
      const len = this.#lists[target].length
      if (len > 0) this.#commit(target, 0, len, [], true)
    }
  }

  /**
   * Loop-internal: consumes this step's input. Takes all of `next-step`, then (only for
   * `target === 'next-turn'`) the first prompt, each in its own record without `outcome`; then calls
   * `claimed(m, turn)` per message. Returns the batch, `next-step` messages first. Claimed messages are
   * gone for good, whatever happens to the step.
   */
  claim(target: InboxTarget, turn: number): UserMessage[] {
    const batch: UserMessage[] = []
    const stepLen = this.#lists['next-step'].length
    if (stepLen > 0) batch.push(...this.#commit('next-step', 0, stepLen, [], false))
    if (target === 'next-turn' && this.#lists['next-turn'].length > 0) {
      batch.push(...this.#commit('next-turn', 0, 1, [], false))
    }
    for (const m of batch) this.#notify.claimed(m, turn)
    return batch
  }

  #find(id: MessageId): { target: InboxTarget; index: number } | undefined {
    for (const target of ['next-turn', 'next-step'] as const) {
      const index = this.#lists[target].findIndex((m) => m.id === id)
      if (index >= 0) return { target, index }
    }
    return undefined
  }

  /** normalize → validate → record → apply → notify, for ordinary mutations and claims alike. */
  #commit(target: InboxTarget, start: number, removed: number, inserted: UserMessage[], ordinary: boolean) {
    if (removed === 0 && inserted.length === 0) return []
    // Key order follows the documented record shape: target, start, removedCount?, inserted, outcome?
    const data: InboxSplice = { target, start, ...(removed > 0 ? { removedCount: removed } : {}), inserted }
    if (ordinary && removed > 0) data.outcome = 'canceled'
    validateSplice(data, this.#lists)
    const event = this.#session.append(INBOX_SPLICED, data)
    const frozen = (event.data as InboxSplice).inserted
    const gone = this.#lists[target].splice(start, removed, ...frozen)
    if (ordinary) {
      for (const m of gone) this.#notify.discarded(m)
      for (const m of frozen) this.#notify.inserted(m)
    }
    return gone
  }
}
