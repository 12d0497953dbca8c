/**
 * Delta translation: one parsed `chat.completion.chunk` at a time → neutral
 * `StreamChunk`s, then finalization at `[DONE]`. Pure state machine; no I/O, no timers.
 */
import { LlmError, callId, isTokenDelta, type ContentBlock, type FinishReason, type StreamChunk } from '@bridle/llm'
import { asRecord } from './json-object.js'
import { translateUsage } from './usage.js'

type OpenBlock =
  | { kind: 'text'; index: number; parts: string[] }
  | { kind: 'reasoning'; index: number; parts: string[] }
  | { kind: 'tool-call'; index: number; id?: string; name?: string; parts: string[] }

type ToolBlock = Extract<OpenBlock, { kind: 'tool-call' }>

/** Accumulates one response's blocks, pending finish reason and pending usage. */
export class DeltaTranslator {
  private nextIndex = 0
  private readonly blocks: OpenBlock[] = []
  private text?: OpenBlock
  private reasoning?: OpenBlock
  private readonly calls = new Map<string, ToolBlock>()
  private lastCall?: ToolBlock
  private syntheticKeys = 0
  private pendingFinish?: string
  private pendingUsage?: Record<string, unknown>

  /** Translates one payload object. Returns the chunks to emit now, in order. */
  push(payload: Record<string, unknown>): StreamChunk[] {
    const out: StreamChunk[] = []
    const choice = firstChoice(payload.choices)
    if (choice !== undefined) {
      const delta = asRecord(choice.delta)
      if (delta !== undefined) {
        this.reasoningDelta(delta, out)
        this.textDelta(delta, out)
        this.toolCallDeltas(delta.tool_calls, out)
      }
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
        this.pendingFinish = choice.finish_reason
      }
    }
    const usage = asRecord(payload.usage)
    if (usage !== undefined) this.pendingUsage = usage
    return out
  }

  /** Finalizes at `[DONE]`: `block-end` for every open block in open order, `usage`, one `finish`. */
  finish(): StreamChunk[] {
    const out: StreamChunk[] = this.blocks.map((block) => ({
      type: 'block-end',
      index: block.index,
      block: assemble(block),
    }))
    if (this.pendingUsage !== undefined) out.push({ type: 'usage', usage: translateUsage(this.pendingUsage) })
    out.push({ type: 'finish', reason: this.finishReason() })
    return out
  }

  private finishReason(): FinishReason {
    const wire = this.pendingFinish
    const hasToolCall = this.calls.size > 0
    if (wire === 'length') return { kind: 'max-tokens' }
    if (wire === undefined || wire === 'stop' || wire === 'tool_calls' || wire === 'function_call') {
      if (hasToolCall) return { kind: 'tool-calls' }
      if (this.blocks.length > 0) return { kind: 'stop' }
      return failed('model returned a completed response with no content', 'EMPTY_RESPONSE')
    }
    return failed(`model stopped: ${wire}`, reasonCode(wire))
  }

  private reasoningDelta(delta: Record<string, unknown>, out: StreamChunk[]): void {
    const text = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning)
    if (text === undefined) return
    this.reasoning ??= this.open({ kind: 'reasoning', index: this.nextIndex, parts: [] }, out)
    this.reasoning.parts.push(text)
    out.push({ type: 'reasoning-delta', index: this.reasoning.index, text })
  }

  private textDelta(delta: Record<string, unknown>, out: StreamChunk[]): void {
    for (const text of [nonEmpty(delta.content), nonEmpty(delta.refusal)]) {
      if (text === undefined) continue
      this.text ??= this.open({ kind: 'text', index: this.nextIndex, parts: [] }, out)
      this.text.parts.push(text)
      out.push({ type: 'text-delta', index: this.text.index, text })
    }
  }

  private toolCallDeltas(items: unknown, out: StreamChunk[]): void {
    if (!Array.isArray(items)) return
    for (const raw of items) {
      const item = asRecord(raw)
      if (item === undefined) continue
      const block = this.callFor(item, out)
      const fn = asRecord(item.function)
      const id = nonEmpty(item.id)
      const name = nonEmpty(fn?.name)
      if (block.id === undefined && id !== undefined) block.id = id
      if (block.name === undefined && name !== undefined) block.name = name
      const args = fn?.arguments
      const fragment = typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args)
      block.parts.push(fragment)
      out.push({
        type: 'tool-call-delta',
        index: block.index,
        id: callId(block.id ?? ''),
        ...(block.name === undefined ? {} : { name: block.name }),
        argumentsDelta: fragment,
      })
    }
  }

  /** Finds or opens the block a wire tool-call item belongs to (by `index`, else by id, else the latest). */
  private callFor(item: Record<string, unknown>, out: StreamChunk[]): ToolBlock {
    let key: string
    const id = nonEmpty(item.id)
    if (typeof item.index === 'number' && Number.isInteger(item.index)) key = `index:${item.index}`
    else if (id !== undefined) {
      const owner = [...this.calls.entries()].find(([, block]) => block.id === id)
      key = owner?.[0] ?? `id:${id}`
    } else if (this.lastCall !== undefined) return this.lastCall
    else key = `synthetic:${this.syntheticKeys++}`
    let block = this.calls.get(key)
    if (block === undefined) {
      block = this.open({ kind: 'tool-call', index: this.nextIndex, parts: [] }, out) as ToolBlock
      this.calls.set(key, block)
      this.lastCall = block
    }
    return block
  }

  private open<B extends OpenBlock>(block: B, out: StreamChunk[]): B {
    this.nextIndex += 1
    this.blocks.push(block)
    out.push({ type: 'block-start', index: block.index, blockType: block.kind })
    return block
  }
}

function assemble(block: OpenBlock): ContentBlock {
  const joined = block.parts.join('')
  if (block.kind === 'tool-call') {
    return {
      type: 'tool-call',
      id: callId(block.id ?? `call-${block.index}`),
      name: block.name ?? '',
      arguments: joined,
    }
  }
  return { type: block.kind, text: joined }
}

/**
 * True when a payload moved the answer: it produced a token (text, reasoning, a tool call's name or arguments) or
 * named a finish reason. Only that restores the wait for progress (`streamDataTimeoutMs`).
 */
export function movesAnswer(chunks: readonly StreamChunk[], payload: Record<string, unknown>): boolean {
  if (chunks.some(isTokenDelta)) return true
  const choice = firstChoice(payload.choices)
  return typeof choice?.finish_reason === 'string' && choice.finish_reason !== ''
}

function failed(message: string, code: string): FinishReason {
  return { kind: 'error', failure: new LlmError(message, code).failure }
}

/** `content_filter` → `CONTENT_FILTER`: upper-cased, non-alphanumerics → `_`. */
function reasonCode(reason: string): string {
  const code = reason.toUpperCase().replace(/[^A-Z0-9]/g, '_')
  return /^[A-Z]/.test(code) ? code : `STOPPED_${code}`
}

function firstChoice(choices: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(choices)) return undefined
  for (const raw of choices) {
    const choice = asRecord(raw)
    if (choice !== undefined && (choice.index === undefined || choice.index === 0)) return choice
  }
  return undefined
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}
