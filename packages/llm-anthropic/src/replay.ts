/**
 * Thinking replay (README.md#thinking-and-replay). Claude's thinking blocks carry a `signature`, and
 * `redacted_thinking` blocks carry opaque `data`; both must go back unchanged in later requests of a tool loop.
 * The neutral message keeps the thinking text as a `reasoning` block; what it cannot hold travels in the
 * message's adapter-private `replayState`: the wire order of the answer's blocks, where each entry is either the
 * next neutral block, a thinking block's signature (its text is the next neutral block, a `reasoning` one), or a
 * whole `redacted_thinking` block.
 */
import { isRecord, type ContentBlock, type JsonValue } from '@bridle/llm'

/** The `replayState` format tag. */
export const REPLAY_FORMAT = 'anthropic-messages/1'

/** One wire block of an answer, as the replay layout records it. */
export type ReplayEntry =
  | 'block'
  | { readonly type: 'thinking'; readonly signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }

/** The adapter's `replayState`. */
export interface AnthropicReplayState {
  readonly format: typeof REPLAY_FORMAT
  readonly layout: readonly ReplayEntry[]
}

/** The replay state for an answer, or `undefined` when it has no thinking to send back (nothing to remember). */
export function replayStateOf(layout: readonly ReplayEntry[]): JsonValue | undefined {
  if (!layout.some((entry) => entry !== 'block')) return undefined
  return { format: REPLAY_FORMAT, layout: layout as JsonValue[] }
}

/** A wire content block of an assistant turn: thinking replayed verbatim, or a neutral block to serialize. */
export type ReplayedBlock =
  | { readonly kind: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly kind: 'redacted_thinking'; readonly data: string }
  | { readonly kind: 'neutral'; readonly block: ContentBlock }

/**
 * The wire order of an assistant message's blocks. With a valid replay state that matches `content` exactly
 * (each signature on a `reasoning` block, every neutral block used once, in order), thinking comes back with
 * its signature; otherwise — another provider's message, or content rewritten since — `reasoning` blocks are
 * left out (the API refuses thinking without its signature) and the rest keeps its order.
 */
export function replayedBlocks(content: readonly ContentBlock[], state: unknown): ReplayedBlock[] {
  const layout = readLayout(state)
  if (layout !== undefined) {
    const out: ReplayedBlock[] = []
    let next = 0
    let fits = true
    for (const entry of layout) {
      if (entry === 'block') {
        const block = content[next++]
        if (block === undefined) fits = false
        else out.push({ kind: 'neutral', block })
      } else if (entry.type === 'thinking') {
        const block = content[next++]
        if (block?.type !== 'reasoning') fits = false
        else out.push({ kind: 'thinking', thinking: block.text, signature: entry.signature })
      } else out.push({ kind: 'redacted_thinking', data: entry.data })
      if (!fits) break
    }
    if (fits && next === content.length) return out
  }
  return content.filter((block) => block.type !== 'reasoning').map((block) => ({ kind: 'neutral', block }))
}

function readLayout(state: unknown): ReplayEntry[] | undefined {
  if (!isRecord(state) || state.format !== REPLAY_FORMAT || !Array.isArray(state.layout)) return undefined
  const out: ReplayEntry[] = []
  for (const raw of state.layout as unknown[]) {
    if (raw === 'block') out.push('block')
    else if (isRecord(raw) && raw.type === 'thinking' && typeof raw.signature === 'string') {
      out.push({ type: 'thinking', signature: raw.signature })
    } else if (isRecord(raw) && raw.type === 'redacted_thinking' && typeof raw.data === 'string') {
      out.push({ type: 'redacted_thinking', data: raw.data })
    } else return undefined
  }
  return out
}
