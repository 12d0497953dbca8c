import type { Message } from '@bridle/llm'
import { deriveEventMessage, isReplacementSurfaceEvent, type Session } from '@bridle/session'
import type { TokenEstimator } from './estimate.js'

/** Where each message of the history came from: its turn, and whether it is an earlier checkpoint. */
interface MessageOrigin {
  readonly turn: number
  readonly checkpoint: boolean
}

/**
 * The origin of every message of `messages` (the session's current derivation, in order): the turn of the surface
 * node it projects (the last `turn/start` before it, 0 before any), or "checkpoint" for a node that replaced history.
 * O(log) — run only when a compaction is due.
 */
function origins(session: Session, messages: readonly Message[]): MessageOrigin[] {
  const events = session.events
  const turnAt = new Int32Array(events.length)
  let turn = 0
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.type === 'turn/start') turn = (event.data as { turn: number }).turn
    turnAt[i] = turn
  }
  const out: MessageOrigin[] = []
  for (const seq of session.surface.nodes) {
    const event = events[seq]!
    const message = deriveEventMessage(event)
    if (message === null) continue
    if (message !== messages[out.length]) throw new TypeError('the request does not match the session surface')
    out.push({ turn: turnAt[seq]!, checkpoint: isReplacementSurfaceEvent(event) })
  }
  if (out.length !== messages.length) throw new TypeError('the request does not match the session surface')
  return out
}

/**
 * Cut positions that never separate a tool call from its result: `c` is valid when every call answered somewhere in
 * `messages` has its call and its result on the same side of `c`. (A call that is never answered — left by a crash —
 * does not block a cut.)
 */
function pairSafeCuts(messages: readonly Message[]): boolean[] {
  const answered = new Set<string>()
  for (const m of messages) for (const b of m.content) if (b.type === 'tool-result') answered.add(b.toolCallId)
  const safe = new Array<boolean>(messages.length + 1).fill(false)
  const open = new Set<string>()
  safe[0] = true
  messages.forEach((m, i) => {
    for (const b of m.content) {
      if (b.type === 'tool-call' && answered.has(b.id)) open.add(b.id)
      else if (b.type === 'tool-result') open.delete(b.toolCallId)
    }
    safe[i + 1] = open.size === 0
  })
  return safe
}

export interface SpanInput {
  readonly session: Session
  readonly messages: readonly Message[]
  /** The turn the request belongs to (open): its messages are never summarized whole. */
  readonly turn: number
  /** Token budget for the messages kept verbatim; `≤ 0` keeps as little as the rules allow. */
  readonly budget: number
  readonly estimator: TokenEstimator
}

/**
 * How many of the oldest messages to summarize: the kept tail is the newest **whole turns** whose estimate fits in the
 * budget (as many as fit). When not even the newest turn fits, the tail is cut inside that turn at the latest point
 * that fits and never separates a tool call from its result — keeping at least its last such group. Messages of a
 * closed turn may all be summarized (a manual compaction between turns). Returns `undefined` when the summary would
 * cover none of the model's answers (only an earlier checkpoint, or only prompts).
 */
export function summarizedCount(input: SpanInput): number | undefined {
  const { session, messages, turn, budget, estimator } = input
  const n = messages.length
  if (n === 0) return undefined
  const origin = origins(session, messages)
  const safe = pairSafeCuts(messages)
  // kept[c]: estimated tokens of messages[c..n)
  const kept = new Float64Array(n + 1)
  for (let i = n - 1; i >= 0; i--) kept[i] = kept[i + 1]! + estimator.tokens(estimator.messageChars(messages[i]!))

  const turnStart = (c: number): boolean => {
    if (c === n) return origin[n - 1]!.turn !== turn
    const prev = origin[c - 1]!
    return prev.checkpoint || prev.turn !== origin[c]!.turn
  }
  // A summary is worth a request only when it covers some of the model's own work: not an earlier checkpoint or a
  // prompt on their own.
  const firstAnswer = messages.findIndex((m) => m.role === 'assistant')
  const worthIt = (c: number): boolean => firstAnswer >= 0 && firstAnswer < c
  let newestTurnStart = -1
  for (let c = 1; c <= n; c++) {
    if (!safe[c] || !turnStart(c)) continue
    if (kept[c]! <= budget && worthIt(c)) return c
    newestTurnStart = c
  }
  // Not even the newest whole turn fits: cut inside it, at the earliest pair-safe point that fits, else the last one.
  let lastSafe = -1
  for (let c = Math.max(newestTurnStart, 1); c < n; c++) {
    if (!safe[c]) continue
    if (kept[c]! <= budget && worthIt(c)) return c
    lastSafe = c
  }
  if (lastSafe > 0 && worthIt(lastSafe)) return lastSafe
  if (newestTurnStart > 0 && worthIt(newestTurnStart)) return newestTurnStart
  return undefined
}
