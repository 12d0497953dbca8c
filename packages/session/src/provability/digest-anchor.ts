/**
 * The message chain a session's log already records. A resumed or seeded agent's first request carries the whole
 * stored history; without this, its digester hashed every message of it (canonical JSON + SHA-256 each, the largest
 * cost of the first request at H = 10,000). With it, the digester continues the chain from the last `request/digest`
 * whose messages are still a prefix of the history and hashes only the messages after it. `verifyDigests` still
 * recomputes every digest from scratch, so a log whose recorded chain is wrong is still caught there.
 */
import type { AnySessionEvent } from '../events/events.js'
import type { SurfacePlan } from '../surface/surface.js'
import { isRecord } from '@bridle/llm'

/** `messages.count` and `messages.chain` of a recorded `request/digest`: the chain over the first `count` messages. */
export interface DigestedPrefix {
  readonly count: number
  readonly chain: string
}

const HEX_DIGEST = /^[0-9a-f]{64}$/

/**
 * Folds the log into the latest trustworthy digested prefix. A `request/digest` becomes the anchor when its record is
 * well formed, its `messages.count` equals the number of messages the history held when it was appended (it covered the
 * whole history, which is how `verifyDigests` rebuilds it) and no surface replace happened since its step began (a
 * replace while the request was being built could have changed messages the digest read). A later replace makes the
 * anchor stale; a later digest that fails the checks leaves an older anchor in place, which still describes a prefix.
 */
export class DigestAnchors {
  /**
   * Surface replaces seen so far. Counted here from the plans rather than read from the surface, because a seeded
   * session adopts its final surface before its events are committed one by one.
   */
  generation = 0
  /** The replace generation at the last `step/start`, or `undefined` before any. */
  private stepGeneration: number | undefined
  private anchor: { readonly prefix: DigestedPrefix; readonly generation: number } | undefined

  /** One committed event with its surface plan, and the number of history messages after it. O(1). */
  observe(event: AnySessionEvent, plan: SurfacePlan, messageCount: number): void {
    if (plan.kind === 'replace') this.generation++
    const generation = this.generation
    if (event.type === 'step/start') {
      this.stepGeneration = generation
      return
    }
    if (event.type !== 'request/digest' || !isRecord(event.data)) return
    const { algorithm, messages } = event.data
    if (algorithm !== 'sha256' || !isRecord(messages)) return
    const { count, chain } = messages
    if (typeof count !== 'number' || count !== messageCount || typeof chain !== 'string' || !HEX_DIGEST.test(chain))
      return
    if (this.stepGeneration !== generation) return
    this.anchor = { prefix: Object.freeze({ count, chain }), generation }
  }

  /** The anchor, when no replace happened since it was recorded. */
  current(): DigestedPrefix | undefined {
    const anchor = this.anchor
    return anchor !== undefined && anchor.generation === this.generation ? anchor.prefix : undefined
  }
}
