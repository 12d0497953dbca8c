/**
 * One `chat` span: one attempt of a model request, from its `request/digest` (right before dispatch) to the end of
 * its stream. It opens with the request the log rebuilds for that digest (request-source.ts) and closes
 * with what came back — finish reason, usage, the answer's id — and the request's cache-prefix row.
 */
import { billedInputTokens, type ContentBlock, type StreamChunk, type TokenUsage } from '@bridle/llm'
import type { AnySessionEvent } from '@bridle/session'
import { cacheAttributes } from './cache-attributes.js'
import {
  inputMessages,
  outputMessages,
  redactedText,
  systemInstructions,
  toolDefinitions,
  type ContentCapture,
} from './content.js'
import type { Attributes, SpanRecord } from './records.js'
import type { ChatRequest, SettledRow } from './request-source.js'
import { BRIDLE, ERROR_TYPE, GEN_AI, HTTP_RESPONSE_STATUS_CODE, OPERATION } from './semconv.js'

/** What every span of one session shares. */
export interface FoldContext {
  readonly sessionId: string
  /** The secrets to redact from anything taken from the log (contents, failure messages). */
  readonly redaction: ContentCapture
  /** Whether message contents go on the spans (off by default). */
  readonly content: boolean
}

/** Bridle's finish kinds in the conventions' words, where they have one. */
const FINISH_REASONS: Record<string, string> = { stop: 'stop', 'tool-calls': 'tool_calls', 'max-tokens': 'length' }

type Finish = Extract<StreamChunk, { type: 'finish' }>['reason']

/** Section names per manifest: every request under one header shares its manifest. */
const namesOfManifest = new WeakMap<readonly { readonly name: string }[], readonly string[]>()
let lastManifest: { sections: readonly { readonly name: string }[]; names: readonly string[] } | undefined
function sectionNames(sections: readonly { readonly name: string }[]): readonly string[] {
  // consecutive requests mostly share one manifest
  if (lastManifest?.sections === sections) return lastManifest.names
  let names = namesOfManifest.get(sections)
  if (names === undefined) namesOfManifest.set(sections, (names = sections.map((s) => s.name)))
  lastManifest = { sections, names }
  return names
}

/** The attributes a `chat` span opens with: the request as the log rebuilds it, and Bridle's facts about it. */
function openAttributes(request: ChatRequest, headerLoggedAfter: number, ctx: FoldContext): Attributes {
  const { record, outline } = request
  const a: Attributes = {}
  a[GEN_AI.operationName] = OPERATION.chat
  const config = outline?.request
  if (config !== undefined) {
    a[GEN_AI.providerName] = config.provider
    a[GEN_AI.requestModel] = config.model
  }
  a[GEN_AI.conversationId] = ctx.sessionId
  a[BRIDLE.sessionId] = ctx.sessionId
  a[BRIDLE.turn] = record.turn
  a[BRIDLE.step] = record.step
  a[BRIDLE.attempt] = record.attempt
  a[BRIDLE.requestSeq] = request.seq
  a[BRIDLE.requestDigest] = record.request
  if (record.purpose !== undefined) a[BRIDLE.requestPurpose] = record.purpose
  if (outline === undefined || config === undefined) return a
  if (config.maxTokens !== undefined) a[GEN_AI.requestMaxTokens] = config.maxTokens
  if (config.temperature !== undefined) a[GEN_AI.requestTemperature] = config.temperature
  if (config.stop !== undefined) a[GEN_AI.requestStopSequences] = [...config.stop]
  if (config.reasoningEffort !== undefined) a[BRIDLE.requestReasoningEffort] = config.reasoningEffort
  // a header logged since the previous request is this request's header change; else the header held
  a[BRIDLE.requestHeaderReason] = outline.headerSeq > headerLoggedAfter ? outline.headerReason : 'unchanged'
  if (outline.sections !== undefined) a[BRIDLE.requestSections] = sectionNames(outline.sections)
  if (outline.compaction !== undefined) {
    a[BRIDLE.compactionReason] = outline.compaction.record.reason
    a[BRIDLE.compactionMessages] = outline.compaction.record.count
  }
  if (ctx.content) {
    const capture = ctx.redaction
    if (config.system !== undefined) a[GEN_AI.systemInstructions] = systemInstructions(config.system, capture)
    if (config.tools !== undefined) a[GEN_AI.toolDefinitions] = toolDefinitions(config.tools, capture)
    if (request.messages !== undefined) a[GEN_AI.inputMessages] = inputMessages(request.messages, capture)
  }
  return a
}

function usageAttributes(usage: TokenUsage, a: Attributes): void {
  a[GEN_AI.usageInputTokens] = billedInputTokens(usage)
  a[GEN_AI.usageOutputTokens] = usage.outputTokens
  if (usage.cacheReadTokens !== undefined) a[GEN_AI.usageCacheReadInputTokens] = usage.cacheReadTokens
  if (usage.cacheWriteTokens !== undefined) a[GEN_AI.usageCacheCreationInputTokens] = usage.cacheWriteTokens
  if (usage.reasoningTokens !== undefined) a[GEN_AI.usageReasoningOutputTokens] = usage.reasoningTokens
}

export class ChatSpan {
  readonly record: SpanRecord
  readonly turn: number
  readonly step: number
  /** Seq of the span's `request/digest`. */
  readonly seq: number
  /** When the stream ended (its finish chunk, else the event that closed the attempt); set once. */
  doneTime: number | undefined
  /** The request's cache-report row, once the replay settled it. */
  row: SettledRow | undefined
  private firstChunkTime: number | undefined
  private finish: Finish | undefined
  /** The usage the provider reported for the attempt (its usage chunk, or its answer's). */
  usage: TokenUsage | undefined
  private answer: { readonly id: string; readonly model: string | undefined } | undefined
  private readonly blocks: ContentBlock[] = []

  constructor(
    request: ChatRequest,
    time: number,
    parent: SpanRecord | undefined,
    headerLoggedAfter: number,
    private readonly ctx: FoldContext,
  ) {
    this.turn = request.record.turn
    this.step = request.record.step
    this.seq = request.seq
    const model = request.outline?.request.model
    this.record = {
      parent,
      name: model === undefined ? OPERATION.chat : `${OPERATION.chat} ${model}`,
      kind: 'client',
      startTime: time,
      endTime: undefined,
      attributes: openAttributes(request, headerLoggedAfter, ctx),
      status: undefined,
    }
  }

  /** Whether `event` carries this attempt's output (its step's chunks or answer). */
  owns(event: AnySessionEvent): boolean {
    const data = event.data as { turn?: unknown; step?: unknown } | null
    return data?.turn === this.turn && data.step === this.step
  }

  /** Takes one of the attempt's chunks. */
  chunk(chunk: StreamChunk, time: number): void {
    this.firstChunkTime ??= time
    if (chunk.type === 'usage') this.usage ??= chunk.usage
    else if (chunk.type === 'finish') {
      this.finish = chunk.reason
      this.doneTime ??= time
    } else if (chunk.type === 'block-end' && this.ctx.content) this.blocks.push(chunk.block)
  }

  /** Takes the attempt's `assistant/message`: the answer's id and model, and the usage it reports. */
  answered(event: AnySessionEvent): void {
    const data = event.data as {
      message: { id: string; source?: { model?: string } }
      usage?: TokenUsage
    }
    this.answer = { id: data.message.id, model: data.message.source?.model }
    if (data.usage !== undefined) this.usage = data.usage
    this.doneTime ??= event.time
  }

  /** Sets the attributes the span closes with on `a` (its record's), and its status. */
  closing(a: Attributes): void {
    const finish = this.finish
    if (finish !== undefined) {
      const reason = FINISH_REASONS[finish.kind]
      // Bridle's own kind only where the conventions have no word for it (a failed or cancelled stream)
      if (reason !== undefined) a[GEN_AI.responseFinishReasons] = [reason]
      else a[BRIDLE.finish] = finish.kind
      if (finish.kind === 'error' || finish.kind === 'aborted') this.failure(finish.failure, finish.kind, a)
    }
    if (this.answer !== undefined) {
      a[GEN_AI.responseId] = this.answer.id
      if (this.answer.model !== undefined) a[GEN_AI.responseModel] = this.answer.model
    }
    if (this.usage !== undefined) usageAttributes(this.usage, a)
    if (this.firstChunkTime !== undefined)
      a[GEN_AI.responseTimeToFirstChunk] = (this.firstChunkTime - this.record.startTime) / 1000
    if (this.row !== undefined) cacheAttributes(this.row.cache, a)
    if (this.ctx.content && (this.blocks.length > 0 || finish !== undefined)) {
      const reason = finish === undefined ? undefined : (FINISH_REASONS[finish.kind] ?? finish.kind)
      a[GEN_AI.outputMessages] = outputMessages(this.blocks, reason, this.ctx.redaction)
    }
  }

  /** A failed attempt is an error span; a cancelled one is not (the turn says who cancelled it). */
  private failure(
    failure: { message?: string; code?: string; status?: number; requestId?: string } | undefined,
    kind: 'error' | 'aborted',
    a: Attributes,
  ): void {
    if (failure?.status !== undefined) a[HTTP_RESPONSE_STATUS_CODE] = failure.status
    if (failure?.requestId !== undefined) a[BRIDLE.failureRequestId] = failure.requestId
    if (kind === 'aborted') return
    a[ERROR_TYPE] = failure?.code ?? 'UNKNOWN'
    const message = failure?.message ?? 'the model request failed'
    this.record.status = { code: 'error', message: redactedText(message, this.ctx.redaction) }
  }
}
