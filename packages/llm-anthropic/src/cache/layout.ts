/**
 * The prefix a request presents to the prompt cache, in the order the API reads it — tools, system, messages — with
 * an estimated token count and a block count at every message end (README.md#prompt-caching). Estimates only: the
 * policy uses them for the per-model minimum and for the log; the API's own counts come back in the usage.
 *
 * Per step this costs O(new messages): a history in a chain of extensions (`historyChainOf`; the session derives
 * histories after appends with `extendHistory`) reuses the chain's measures and measures only the tail.
 */
import { type CachePlanInput, historyBaseOf, historyChainOf, type Message } from '@bridle/llm'
import { replayedBlocks } from '../replay.js'

/** Characters per token the estimate assumes (code and JSON run near 3, English prose near 4). */
export const CHARS_PER_TOKEN = 3.5

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN)

/** Cumulative measures of the messages area: index i holds the totals through message i. */
interface Measured {
  readonly provider: string
  readonly tokens: number[]
  readonly blocks: number[]
}

const measured = new WeakMap<readonly Message[], Measured>()
/** Chain of extensions → the measures of its longest measured member. */
const measuredChains = new WeakMap<object, Measured>()

export interface PrefixLayout {
  /** Estimated tokens of the tool definitions. */
  readonly toolTokens: number
  /** Estimated tokens of tools plus the first `offset` characters of the system string. */
  systemTokens(offset: number): number
  readonly systemLength: number
  readonly messageCount: number
  /** Estimated tokens of the whole prefix through message `i`. */
  tokensThrough(i: number): number
  /** Wire content blocks of the messages through message `i`. */
  blocksThrough(i: number): number
  /** Index of message `i`'s last neutral block (where a breakpoint on it goes). */
  lastBlock(i: number): number
}

/** Measures `input.request`'s prefix. */
export function prefixLayout(input: CachePlanInput): PrefixLayout {
  const { request } = input
  const toolTokens = estimateTokens(JSON.stringify(request.tools ?? []).length)
  const system = request.system ?? ''
  const systemTokens = (offset: number) => toolTokens + estimateTokens(Math.min(Math.max(offset, 0), system.length))
  const head = systemTokens(system.length)
  const m = measure(request.messages, request.provider)
  return {
    toolTokens,
    systemTokens,
    systemLength: system.length,
    messageCount: request.messages.length,
    tokensThrough: (i) => head + (m.tokens[i] ?? 0),
    blocksThrough: (i) => m.blocks[i] ?? 0,
    lastBlock: (i) => Math.max(0, (request.messages[i]?.content.length ?? 1) - 1),
  }
}

function measure(messages: readonly Message[], provider: string): Measured {
  const known = measured.get(messages)
  if (known !== undefined && known.provider === provider) return known
  const chain = historyChainOf(messages)
  // A chain's measures run over its longest measured member: a prefix of every longer member, and every shorter
  // member is a prefix of it. So they are extended in place, or read as they are up to `messages.length`. The first
  // extension of a history measured alone finds it as its base (when the base is in the same chain, not branched).
  const base = historyBaseOf(messages)
  const ofBase = base === undefined || historyChainOf(base) !== chain ? undefined : measured.get(base)
  const from =
    (chain === undefined ? undefined : measuredChains.get(chain)) ??
    (ofBase !== undefined && ofBase.tokens.length === base!.length ? ofBase : undefined)
  const out: Measured = from !== undefined && from.provider === provider ? from : { provider, tokens: [], blocks: [] }
  for (let i = out.tokens.length; i < messages.length; i++) {
    const message = messages[i]!
    out.tokens.push((out.tokens[i - 1] ?? 0) + estimateTokens(JSON.stringify(message.content).length))
    out.blocks.push((out.blocks[i - 1] ?? 0) + wireBlocks(message, provider))
  }
  measured.set(messages, out)
  if (chain !== undefined) measuredChains.set(chain, out)
  return out
}

/** How many content blocks a message becomes on the wire (thinking replayed, foreign reasoning left out). */
function wireBlocks(message: Message, provider: string): number {
  if (message.role !== 'assistant') return Math.max(1, message.content.length)
  const source = message.source
  const state = source.kind === 'model' && source.provider === provider ? source.replayState : undefined
  return replayedBlocks(message.content, state).length
}
