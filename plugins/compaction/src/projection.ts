import type { GenerateOptions, TokenUsage } from '@bridle/llm'
import {
  isReplacementSurfaceEvent,
  systemDigest,
  toolsDigest,
  type AnySessionEvent,
  type RequestDigestRecord,
} from '@bridle/session'
import type { TokenEstimator } from './estimate.js'

/** How many input tokens a request will take, and how that number was reached. */
export interface Projection {
  /** Projected input tokens of the whole request. */
  readonly tokens: number
  /**
   * The provider-reported input tokens of the previous conversation request this projection builds on, and how many
   * of the request's messages that request already carried; absent when the projection is an estimate throughout
   * (no report yet, a compaction or a system/tools change since, or a failed previous request).
   */
  readonly base?: { readonly reported: number; readonly messages: number }
  /** The estimated part: everything after the base (or the whole request without one). */
  readonly estimated: number
}

/** Reported input tokens: uncached + cache read + cache write (Bridle's usage counts are disjoint). */
export function reportedInput(usage: TokenUsage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
}

interface PreviousRequest {
  readonly digest: RequestDigestRecord
  readonly usage: TokenUsage | undefined
  /** A surface replace happened after it (its messages are no longer a prefix of the history). */
  readonly replaced: boolean
  /** A `request/header` was logged after it (system or tools may differ). */
  readonly headerLogged: boolean
}

/**
 * The last conversation request before the end of `events` (summary requests are skipped), read backwards: O(events
 * since it), that is, its response, tool results and the current step's entries.
 */
function previousRequest(events: readonly AnySessionEvent[]): PreviousRequest | undefined {
  let usage: TokenUsage | undefined
  let usageAt: { turn: number; step: number } | undefined
  let replaced = false
  let headerLogged = false
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (isReplacementSurfaceEvent(event)) replaced = true
    else if (event.type === 'request/header') headerLogged = true
    else if (event.type === 'assistant/message') {
      const data = event.data as { turn: number; step: number; usage?: TokenUsage }
      usage = data.usage
      usageAt = { turn: data.turn, step: data.step }
    } else if (event.type === 'request/digest') {
      const digest = event.data as RequestDigestRecord
      if (digest.purpose === 'compaction') continue
      const own = usageAt !== undefined && usageAt.turn === digest.turn && usageAt.step === digest.step
      return { digest, usage: own ? usage : undefined, replaced, headerLogged }
    }
  }
  return undefined
}

/**
 * Projects the input tokens of `request`, about to be sent in `events`' session: the provider-reported input tokens of
 * the previous conversation request plus an estimate for the messages appended since (its answer, tool results, this
 * step's messages). When there is no usable report, the whole request is estimated. A usable report also recalibrates
 * the estimator (its request's characters against its reported tokens).
 */
export function projectInput(
  events: readonly AnySessionEvent[],
  request: GenerateOptions,
  estimator: TokenEstimator,
): Projection {
  const messages = request.messages
  const headerChars = estimator.headerChars(request.system, request.tools)
  const previous = previousRequest(events)
  const count = previous?.digest.messages.count ?? -1
  const usable =
    previous !== undefined &&
    previous.usage !== undefined &&
    !previous.replaced &&
    count <= messages.length &&
    (!previous.headerLogged ||
      (systemDigest(request.system) === previous.digest.system && toolsDigest(request.tools) === previous.digest.tools))
  if (!usable) {
    const estimated = estimator.tokens(headerChars + estimator.messagesChars(messages))
    return { tokens: estimated, estimated }
  }
  const reported = reportedInput(previous.usage!)
  estimator.calibrate(headerChars + estimator.messagesChars(messages, 0, count), reported)
  const estimated = estimator.tokens(estimator.messagesChars(messages, count))
  return { tokens: reported + estimated, base: { reported, messages: count }, estimated }
}
