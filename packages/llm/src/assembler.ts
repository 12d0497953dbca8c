/**
 * `BlockAssembler`: the single place chunks become content blocks and an assistant message. The loop, the
 * session's reconstruction and adapter tests all assemble the same way.
 */
import type { ContentBlock } from './content.js'
import { callId, type JsonValue } from './ids.js'
import { deepFreeze, isDeepFrozen } from './freeze.js'
import { createAssistantMessage, type AssistantMessage } from './message.js'
import type { FinishReason, StreamChunk, TokenUsage } from './stream.js'

interface PartialBlock {
  readonly index: number
  readonly type: string
  text: string
  id: string
  name: string | undefined
  args: string
  /** The authoritative block from `block-end`; once set, later deltas are ignored. */
  ended: ContentBlock | undefined
}

const STOP: FinishReason = Object.freeze({ kind: 'stop' })

/** Assembles one response's chunks into blocks; push every chunk in order, then read. */
export class BlockAssembler {
  private readonly partials = new Map<number, PartialBlock>()
  private finishReason: FinishReason = STOP
  private lastUsage: TokenUsage | undefined
  private lastReplayState: JsonValue | undefined

  private partial(index: number, type: string): PartialBlock {
    let partial = this.partials.get(index)
    if (!partial) {
      partial = { index, type, text: '', id: '', name: undefined, args: '', ended: undefined }
      this.partials.set(index, partial)
    }
    return partial
  }

  /**
   * Feeds one chunk. `block-start` creates the partial for its index (first start wins); text/reasoning
   * deltas append (creating a partial for delta-only streams); tool-call deltas set a non-empty id, a given
   * name and append arguments; `block-end` stores the authoritative block (first close wins); `usage` and
   * `finish` overwrite the previous value.
   */
  push(chunk: StreamChunk): void {
    switch (chunk.type) {
      case 'block-start':
        this.partial(chunk.index, chunk.blockType)
        return
      case 'text-delta':
      case 'reasoning-delta': {
        const partial = this.partial(chunk.index, chunk.type === 'text-delta' ? 'text' : 'reasoning')
        if (!partial.ended) partial.text += chunk.text
        return
      }
      case 'tool-call-delta': {
        const partial = this.partial(chunk.index, 'tool-call')
        if (partial.ended) return
        if (chunk.id) partial.id = chunk.id
        if (typeof chunk.name === 'string') partial.name = chunk.name
        partial.args += chunk.argumentsDelta ?? ''
        return
      }
      case 'block-end': {
        const partial = this.partial(chunk.index, chunk.block.type)
        if (!partial.ended) partial.ended = chunk.block
        return
      }
      case 'usage':
        this.lastUsage = chunk.usage
        return
      case 'finish':
        this.finishReason = chunk.reason
        this.lastReplayState = chunk.replayState
        return
    }
  }

  /** The last finish reason, `{kind:'stop'}` until a `finish` chunk arrives. */
  get finish(): FinishReason {
    return this.finishReason
  }

  /** The last reported usage, if any. */
  get usage(): TokenUsage | undefined {
    return this.lastUsage
  }

  /** The adapter-private replay state of the last `finish` chunk, if any. */
  get replayState(): JsonValue | undefined {
    return this.lastReplayState
  }

  /**
   * One frozen block per seen index, in first-seen order. Un-ended partials are assembled from their deltas
   * (a tool call without id gets `call-<index>`); an un-ended partial of an unknown type throws `TypeError`.
   * After a `max-tokens` finish, tool-call blocks are dropped: truncated arguments must never execute.
   */
  blocks(): ContentBlock[] {
    const dropToolCalls = this.finishReason.kind === 'max-tokens'
    const blocks: ContentBlock[] = []
    for (const partial of this.partials.values()) {
      const block = partial.ended ? owned(partial.ended) : assemble(partial)
      if (dropToolCalls && block.type === 'tool-call') continue
      blocks.push(block)
    }
    return blocks
  }

  /** The assembled response as a frozen `AssistantMessage`, carrying the finish chunk's `replayState`. */
  message(source: { provider: string; model: string }): AssistantMessage {
    const provenance: { provider: string; model: string; replayState?: JsonValue } = {
      provider: source.provider,
      model: source.model,
    }
    if (this.lastReplayState !== undefined) provenance.replayState = this.lastReplayState
    return createAssistantMessage({ content: this.blocks(), source: provenance })
  }
}

function owned(block: ContentBlock): ContentBlock {
  return isDeepFrozen(block) ? block : deepFreeze(structuredClone(block))
}

function assemble(partial: PartialBlock): ContentBlock {
  switch (partial.type) {
    case 'text':
      return deepFreeze({ type: 'text', text: partial.text })
    case 'reasoning':
      return deepFreeze({ type: 'reasoning', text: partial.text })
    case 'tool-call':
      return deepFreeze({
        type: 'tool-call',
        id: callId(partial.id || `call-${partial.index}`),
        name: partial.name ?? '',
        arguments: partial.args,
      })
    default:
      throw new TypeError(`cannot assemble the un-ended ${partial.type} block at index ${partial.index} from deltas`)
  }
}
