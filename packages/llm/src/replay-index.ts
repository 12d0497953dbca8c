/**
 * Which providers' `replayState` a history carries, remembered per frozen history array. The terminal stage of
 * `llm/stream` strips foreign `replayState` on every call; without this it reads the source of every message of the
 * history on every step. A history that extends one already indexed (same first message, same leading elements) is
 * indexed by comparing element identities and reading only the new messages.
 */
import { historyBaseOf, historyChainOf } from './history.js'
import type { Message } from './message.js'

/** Providers with at least one `replayState`-carrying assistant message, and how many such messages each has. */
export interface ReplayIndex {
  readonly providers: ReadonlyMap<string, number>
}

interface Entry extends ReplayIndex {
  readonly messages: readonly Message[]
}

/** Exact history array → its index. Only frozen arrays of frozen messages with frozen sources are cached. */
const byArray = new WeakMap<readonly Message[], Entry>()
/** First message → the latest cached history that starts with it (the likely base of the next one). */
const byHead = new WeakMap<Message, Entry>()
/** Chain of extensions (`historyChainOf`) → its longest cached history, a prefix of every longer member. */
const byChain = new WeakMap<object, Entry>()

/**
 * The replay index of `messages`. Exact for any input; cached (and used as a base for later histories) only when
 * the array, every message and every message source are frozen, so what was read cannot change afterwards.
 * A history whose chain of extensions (`historyChainOf`) has a cached member no longer than it costs O(new messages)
 * (however many histories were built in between); one sharing a first message with a
 * cached history costs one identity comparison per shared element; anything else a full read.
 */
export function replayIndexOf(messages: readonly Message[]): ReplayIndex {
  const cached = byArray.get(messages)
  if (cached !== undefined) return cached
  const head = messages[0]
  // A cached member of the history's chain no longer than it, or its cached base, is its prefix: no element
  // comparison. Otherwise try the latest history with the same first message, and check the shared prefix by identity.
  const chain = historyChainOf(messages)
  const member = chain === undefined ? undefined : byChain.get(chain)
  const parent = historyBaseOf(messages)
  const lineal =
    member !== undefined && member.messages.length <= messages.length
      ? member
      : parent === undefined
        ? undefined
        : byArray.get(parent)
  const base = lineal ?? (head === undefined ? undefined : byHead.get(head))
  let start = 0
  let providers: Map<string, number>
  if (
    base !== undefined &&
    (base === lineal || (messages.length >= base.messages.length && sharesPrefix(messages, base.messages)))
  ) {
    start = base.messages.length
    providers = new Map(base.providers)
  } else {
    providers = new Map()
  }
  let cacheable = Object.isFrozen(messages)
  for (let i = start; i < messages.length; i++) {
    const message = messages[i]!
    const source = message.source
    if (cacheable && !(Object.isFrozen(message) && Object.isFrozen(source))) cacheable = false
    if (source.kind !== 'model' || source.replayState === undefined) continue
    providers.set(source.provider, (providers.get(source.provider) ?? 0) + 1)
  }
  const entry: Entry = { messages, providers }
  if (cacheable) {
    byArray.set(messages, entry)
    if (head !== undefined) byHead.set(head, entry)
    if (chain !== undefined && (member === undefined || member.messages.length <= messages.length))
      byChain.set(chain, entry)
  }
  return entry
}

/** True when `base` is an element-wise (identity) prefix of `messages`. */
function sharesPrefix(messages: readonly Message[], base: readonly Message[]): boolean {
  for (let i = base.length - 1; i >= 0; i--) if (messages[i] !== base[i]) return false
  return true
}
