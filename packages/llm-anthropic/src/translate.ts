/**
 * Event translation: one parsed Messages stream event at a time → neutral `StreamChunk`s, then finalization at
 * `message_stop` (README.md#streaming). Pure state machine; no I/O, no timers. `push` reports whether the event
 * carried content, which is what re-arms the adapter's data deadline (a `ping` or an empty delta does not).
 */
import { LlmError, callId, isRecord, type FinishReason, type StreamChunk, type TokenUsage } from '@bridle/llm'
import { replayStateOf, type ReplayEntry } from './replay.js'
import { mergeUsage, translateUsage } from './usage.js'

type OpenBlock =
  | { kind: 'text'; index: number; parts: string[] }
  | { kind: 'reasoning'; index: number; parts: string[]; signature: string[]; slot: number }
  | { kind: 'tool-call'; index: number; id: string; name: string; parts: string[]; initial?: string }

/** What one event did. */
export interface PushResult {
  chunks: StreamChunk[]
  /** True when the event carried model output or ended something; false for `ping` and empty deltas. */
  progress: boolean
  /** True after `message_stop`: the response is complete. */
  done: boolean
}

/** Accumulates one response: open blocks by wire index, the replay layout, the stop reason and the usage. */
export class MessagesTranslator {
  private nextIndex = 0
  private readonly open = new Map<number, OpenBlock>()
  private readonly order: OpenBlock[] = []
  private readonly layout: ReplayEntry[] = []
  private readonly closed = new Set<OpenBlock>()
  private stopReason?: string
  private usage?: Record<string, unknown>
  private started = false
  private toolCalls = 0

  constructor(private readonly displayName: string) {}

  /** True once `message_start` arrived. */
  get hasStarted(): boolean {
    return this.started
  }

  /** Translates one event payload (the event's `type` field names it). */
  push(event: Record<string, unknown>): PushResult {
    const out: StreamChunk[] = []
    switch (event.type) {
      case 'message_start': {
        this.started = true
        const message = isRecord(event.message) ? event.message : {}
        if (isRecord(message.usage)) this.usage = mergeUsage(this.usage, message.usage)
        return { chunks: out, progress: true, done: false }
      }
      case 'content_block_start':
        return { chunks: out, progress: this.start(event, out), done: false }
      case 'content_block_delta':
        return { chunks: out, progress: this.delta(event, out), done: false }
      case 'content_block_stop':
        return { chunks: out, progress: this.stop(event, out), done: false }
      case 'message_delta': {
        const delta = isRecord(event.delta) ? event.delta : {}
        if (typeof delta.stop_reason === 'string' && delta.stop_reason !== '') this.stopReason = delta.stop_reason
        if (isRecord(event.usage)) this.usage = mergeUsage(this.usage, event.usage)
        return { chunks: out, progress: true, done: false }
      }
      case 'message_stop':
        return { chunks: this.finish(), progress: true, done: true }
      default:
        // `ping`, and event types a newer API version adds: nothing to translate
        return { chunks: out, progress: false, done: false }
    }
  }

  private start(event: Record<string, unknown>, out: StreamChunk[]): boolean {
    const wire = wireIndex(event.index)
    const block = isRecord(event.content_block) ? event.content_block : undefined
    if (wire === undefined || block === undefined) throw this.malformed('content_block_start without index or block')
    if (this.open.has(wire)) throw this.malformed(`second content_block_start for index ${wire}`)
    switch (block.type) {
      case 'text': {
        const open = this.openBlock(wire, { kind: 'text', index: this.nextIndex, parts: [] }, out)
        this.layout.push('block')
        const text = str(block.text)
        if (text !== '') this.appendText(open, text, out)
        return true
      }
      case 'thinking': {
        const slot = this.layout.length
        // its place in the answer; the signature is filled in when the block closes
        this.layout.push({ type: 'thinking', signature: '' })
        const open = this.openBlock(
          wire,
          { kind: 'reasoning', index: this.nextIndex, parts: [], signature: [], slot },
          out,
        )
        const text = str(block.thinking)
        if (text !== '') this.appendText(open, text, out)
        if (open.kind === 'reasoning') open.signature.push(str(block.signature))
        return true
      }
      case 'redacted_thinking':
        // no neutral block can hold it: it lives in the replay layout only, in its wire place
        this.layout.push({ type: 'redacted_thinking', data: str(block.data) })
        return true
      case 'tool_use': {
        const id = str(block.id)
        const name = str(block.name)
        const input =
          isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : undefined
        const open = this.openBlock(wire, { kind: 'tool-call', index: this.nextIndex, id, name, parts: [] }, out)
        if (open.kind === 'tool-call' && input !== undefined) open.initial = input
        this.layout.push('block')
        this.toolCalls++
        out.push({ type: 'tool-call-delta', index: open.index, id: callId(id), name, argumentsDelta: '' })
        return true
      }
      default:
        // server-side tool blocks and future block types: Bridle sends no server tools, so skip them
        return false
    }
  }

  private delta(event: Record<string, unknown>, out: StreamChunk[]): boolean {
    const open = this.open.get(wireIndex(event.index) ?? -1)
    const delta = isRecord(event.delta) ? event.delta : undefined
    if (delta === undefined) throw this.malformed('content_block_delta without delta')
    if (open === undefined) return false
    switch (delta.type) {
      case 'text_delta':
      case 'thinking_delta': {
        const text = str(delta.type === 'text_delta' ? delta.text : delta.thinking)
        if (text === '') return false
        if ((delta.type === 'text_delta') !== (open.kind === 'text')) throw this.mismatch(delta.type, open)
        this.appendText(open, text, out)
        return true
      }
      case 'signature_delta': {
        if (open.kind !== 'reasoning') throw this.mismatch('signature_delta', open)
        const signature = str(delta.signature)
        open.signature.push(signature)
        return signature !== ''
      }
      case 'input_json_delta': {
        if (open.kind !== 'tool-call') throw this.mismatch('input_json_delta', open)
        const fragment = str(delta.partial_json)
        if (fragment === '') return false
        open.parts.push(fragment)
        out.push({
          type: 'tool-call-delta',
          index: open.index,
          id: callId(open.id),
          name: open.name,
          argumentsDelta: fragment,
        })
        return true
      }
      default:
        // citations and future delta types
        return false
    }
  }

  private stop(event: Record<string, unknown>, out: StreamChunk[]): boolean {
    const wire = wireIndex(event.index)
    const open = wire === undefined ? undefined : this.open.get(wire)
    if (open === undefined) return false
    this.open.delete(wire!)
    this.close(open, out)
    return true
  }

  /** At `message_stop`: close what is still open, then `usage` and exactly one `finish`. */
  finish(): StreamChunk[] {
    const out: StreamChunk[] = []
    for (const block of this.order) if (!this.closed.has(block)) this.close(block, out)
    this.open.clear()
    if (this.usage !== undefined) out.push({ type: 'usage', usage: translateUsage(this.usage) })
    const replayState = replayStateOf(this.layout)
    out.push({ type: 'finish', reason: this.finishReason(), ...(replayState === undefined ? {} : { replayState }) })
    return out
  }

  /** Usage reported so far (for an error turn's record). */
  get partialUsage(): TokenUsage | undefined {
    return this.usage === undefined ? undefined : translateUsage(this.usage)
  }

  private finishReason(): FinishReason {
    const reason = this.stopReason
    const hasBlocks = this.order.length > 0
    if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return { kind: 'max-tokens' }
    if (reason === undefined || reason === 'end_turn' || reason === 'tool_use' || reason === 'stop_sequence') {
      if (this.toolCalls > 0) return { kind: 'tool-calls' }
      if (hasBlocks) return { kind: 'stop' }
      return failed('model returned a completed response with no content', 'EMPTY_RESPONSE')
    }
    if (reason === 'pause_turn') {
      return failed(
        `${this.displayName} paused the turn (pause_turn); Bridle sends no server tools to resume`,
        'PAUSE_TURN',
      )
    }
    return failed(`model stopped: ${reason}`, reasonCode(reason))
  }

  private openBlock(wire: number, block: OpenBlock, out: StreamChunk[]): OpenBlock {
    this.nextIndex += 1
    this.open.set(wire, block)
    this.order.push(block)
    out.push({ type: 'block-start', index: block.index, blockType: block.kind })
    return block
  }

  private appendText(open: OpenBlock, text: string, out: StreamChunk[]): void {
    open.parts.push(text)
    out.push({ type: open.kind === 'reasoning' ? 'reasoning-delta' : 'text-delta', index: open.index, text })
  }

  private close(open: OpenBlock, out: StreamChunk[]): void {
    this.closed.add(open)
    const joined = open.parts.join('')
    if (open.kind === 'tool-call') {
      const args = joined === '' ? (open.initial ?? '') : joined
      out.push({
        type: 'block-end',
        index: open.index,
        block: { type: 'tool-call', id: callId(open.id || `call-${open.index}`), name: open.name, arguments: args },
      })
      return
    }
    if (open.kind === 'reasoning') this.layout[open.slot] = { type: 'thinking', signature: open.signature.join('') }
    out.push({ type: 'block-end', index: open.index, block: { type: open.kind, text: joined } })
  }

  private malformed(what: string): LlmError {
    return new LlmError(`malformed event from ${this.displayName}: ${what}`, 'MALFORMED_RESPONSE')
  }

  private mismatch(deltaType: string, open: OpenBlock): LlmError {
    return this.malformed(`${deltaType} for a ${open.kind} block`)
  }
}

function failed(message: string, code: string): FinishReason {
  return { kind: 'error', failure: new LlmError(message, code).failure }
}

/** `refusal` → `REFUSAL`: upper-cased, non-alphanumerics → `_`. */
function reasonCode(reason: string): string {
  const code = reason.toUpperCase().replace(/[^A-Z0-9]/g, '_')
  return /^[A-Z]/.test(code) ? code : `STOPPED_${code}`
}

function wireIndex(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
