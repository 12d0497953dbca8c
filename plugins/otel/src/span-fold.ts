/**
 * The one fold from a session log to spans (docs/tracing.md): fed the log's events in order — live, as
 * `session/event` reports them, or from a stored log — it opens and closes an `invoke_agent` span per turn, a `chat`
 * span per model request attempt and an `execute_tool` span per tool call, at the events' recorded times. Live and
 * exported spans of one session come from this same code, so they are equal apart from their ids.
 */
import { billedInputTokens, type StreamChunk, type TokenUsage } from '@bridle/llm'
import type { AnySessionEvent } from '@bridle/session'
import { ChatSpan, type FoldContext } from './chat-span.js'
import { redactedText } from './content.js'
import type { Attributes, SpanRecord, SpanSink } from './records.js'
import { requestSource, type RequestSource, type SettledRow } from './request-source.js'
import { BRIDLE, ERROR_TYPE, GEN_AI, OPERATION } from './semconv.js'
import { openToolSpan, resultCallId, toolResultAttributes } from './tool-span.js'

/**
 * Why spans ended without the events that end them: the plugin was unloaded (`unloaded`), the session left the
 * store (`disposed`), the stored log ends there (`log-end`), or a new turn began before the last one ended
 * (`superseded`, a log no session writes).
 */
export type UnfinishedReason = 'unloaded' | 'disposed' | 'log-end' | 'superseded'

interface TurnState {
  readonly record: SpanRecord
  steps: number
  requests: number
  usage: TokenUsage | undefined
  route: { readonly provider: string; readonly model: string } | undefined
}

interface TurnEndData {
  readonly reason?: {
    readonly kind?: string
    readonly error?: { readonly message?: string; readonly code?: string }
    readonly reason?: { readonly kind?: string }
  }
}

/** Two optional counts added; absent when neither was reported. */
const plus = (a: number | undefined, b: number | undefined) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0)

/** The turn's usage so far plus one request's: cache and reasoning counts only where some request reported them. */
function addUsage(sum: TokenUsage | undefined, usage: TokenUsage): TokenUsage {
  const total: TokenUsage = {
    inputTokens: (sum?.inputTokens ?? 0) + usage.inputTokens,
    outputTokens: (sum?.outputTokens ?? 0) + usage.outputTokens,
  }
  const read = plus(sum?.cacheReadTokens, usage.cacheReadTokens)
  const write = plus(sum?.cacheWriteTokens, usage.cacheWriteTokens)
  const reasoning = plus(sum?.reasoningTokens, usage.reasoningTokens)
  if (read !== undefined) total.cacheReadTokens = read
  if (write !== undefined) total.cacheWriteTokens = write
  if (reasoning !== undefined) total.reasoningTokens = reasoning
  return total
}

/** The spans of one session's log. Feed it every event of the log, in order, from seq 0. */
export class SessionSpanFold {
  /** The session's requests as the log rebuilds them, with their cache rows; the log's digests are trusted. */
  private readonly replay: RequestSource
  private turn: TurnState | undefined
  private chat: ChatSpan | undefined
  private readonly tools = new Map<string, SpanRecord>()
  /** Seq of the last `request/digest`: a header logged after it belongs to the next request. */
  private lastDigestSeq = -1
  private lastTime: number | undefined

  constructor(private readonly ctx: FoldContext) {
    this.replay = requestSource(ctx.content)
  }

  /** Folds the next event; spans it opens or closes go to `sink` (none while catching up on a log's past). */
  push(event: AnySessionEvent, sink: SpanSink | undefined): void {
    const settled = this.replay.push(event)
    this.lastTime = event.time
    if (settled !== undefined) this.settled(settled)
    const chat = this.chat
    switch (event.type) {
      case 'turn/start':
        if (this.turn !== undefined) this.finish('superseded', sink)
        this.openTurn(event, sink)
        break
      case 'step/start':
        if (this.turn !== undefined) this.turn.steps++
        break
      case 'request/digest':
        // the previous attempt's row was settled by this digest; its stream ended here at the latest
        this.endChat(event.time, sink, false)
        this.openChat(event, sink)
        break
      case 'assistant/chunk':
        if (chat?.owns(event)) chat.chunk((event.data as { chunk: StreamChunk }).chunk, event.time)
        break
      case 'assistant/message':
        if (chat?.owns(event)) {
          chat.answered(event)
          this.endChat(event.time, sink, true)
        }
        break
      case 'step/end':
        if (chat?.owns(event)) this.endChat(event.time, sink, true)
        break
      case 'tool/call':
        this.openTool(event, sink)
        break
      case 'tool/result':
        this.closeTool(event, sink)
        break
      case 'turn/end':
        this.endChat(event.time, sink, true)
        for (const callId of [...this.tools.keys()]) this.closeToolAt(callId, event.time, undefined, sink)
        this.closeTurn(event, sink)
        break
    }
  }

  /**
   * Ends every span still open — a turn cut short — at the time of the last event folded, marked
   * `bridle.unfinished` with `reason`.
   */
  finish(reason: UnfinishedReason, sink: SpanSink | undefined): void {
    const time = this.lastTime
    if (time === undefined) return
    if (this.chat !== undefined) this.endChat(time, sink, true, reason)
    for (const callId of [...this.tools.keys()]) this.closeToolAt(callId, time, reason, sink)
    const turn = this.turn
    if (turn === undefined) return
    this.turn = undefined
    this.turnSummary(turn)
    turn.record.attributes[BRIDLE.unfinished] = reason
    close(turn.record, time, sink)
  }

  private settled(row: SettledRow): void {
    if (this.chat?.seq === row.seq) this.chat.row = row
  }

  private openTurn(event: AnySessionEvent, sink: SpanSink | undefined): void {
    const turn = (event.data as { turn?: number } | null)?.turn ?? 0
    // attributes set one by one: a literal with computed keys costs several times more before the code is optimized
    const attributes: Attributes = {}
    attributes[GEN_AI.operationName] = OPERATION.invokeAgent
    attributes[GEN_AI.conversationId] = this.ctx.sessionId
    attributes[BRIDLE.sessionId] = this.ctx.sessionId
    attributes[BRIDLE.turn] = turn
    const record: SpanRecord = {
      parent: undefined,
      name: OPERATION.invokeAgent,
      kind: 'internal',
      startTime: event.time,
      endTime: undefined,
      attributes,
      status: undefined,
    }
    this.turn = { record, steps: 0, requests: 0, usage: undefined, route: undefined }
    sink?.open(record)
  }

  /** Sets what the turn's span closes with on its record: its route, summed usage, steps and requests. */
  private turnSummary(turn: TurnState): void {
    const a = turn.record.attributes
    if (turn.route !== undefined) {
      a[GEN_AI.providerName] = turn.route.provider
      a[GEN_AI.requestModel] = turn.route.model
    }
    const usage = turn.usage
    if (usage !== undefined) {
      a[GEN_AI.usageInputTokens] = billedInputTokens(usage)
      a[GEN_AI.usageOutputTokens] = usage.outputTokens
      if (usage.cacheReadTokens !== undefined) a[GEN_AI.usageCacheReadInputTokens] = usage.cacheReadTokens
      if (usage.cacheWriteTokens !== undefined) a[GEN_AI.usageCacheCreationInputTokens] = usage.cacheWriteTokens
      if (usage.reasoningTokens !== undefined) a[GEN_AI.usageReasoningOutputTokens] = usage.reasoningTokens
    }
    a[BRIDLE.turnSteps] = turn.steps
    a[BRIDLE.turnRequests] = turn.requests
  }

  private closeTurn(event: AnySessionEvent, sink: SpanSink | undefined): void {
    const turn = this.turn
    if (turn === undefined) return
    this.turn = undefined
    const reason = (event.data as TurnEndData | null)?.reason
    this.turnSummary(turn)
    const a = turn.record.attributes
    const kind = reason?.kind ?? 'unknown'
    a[BRIDLE.turnEndReason] = kind
    if (kind === 'aborted' && reason?.reason?.kind !== undefined) a[BRIDLE.turnAbortReason] = reason.reason.kind
    if (kind === 'error') {
      a[ERROR_TYPE] = reason?.error?.code ?? 'UNKNOWN'
      const message = reason?.error?.message ?? 'the turn failed'
      turn.record.status = { code: 'error', message: this.redact(message) }
    } else if (kind === 'interrupted') {
      a[ERROR_TYPE] = 'INTERRUPTED'
      turn.record.status = { code: 'error', message: 'the turn was interrupted: the process ended before it did' }
    }
    close(turn.record, event.time, sink)
  }

  private openChat(event: AnySessionEvent, sink: SpanSink | undefined): void {
    const request = this.replay.current
    if (request === undefined || request.seq !== event.seq) return
    const chat = new ChatSpan(request, event.time, this.turn?.record, this.lastDigestSeq, this.ctx)
    this.lastDigestSeq = event.seq
    this.chat = chat
    if (this.turn !== undefined) {
      this.turn.requests++
      const config = request.outline?.request
      if (config !== undefined && request.record.purpose === undefined)
        this.turn.route = { provider: config.provider, model: config.model }
    }
    sink?.open(chat.record)
  }

  /**
   * Closes the open attempt at `time` (or when its stream finished). `settle` says the log can report no usage for it
   * any more (its answer, its step's end or its turn's end was folded), so its cache row is settled now if it was not.
   * `unfinished` marks an attempt cut short.
   */
  private endChat(time: number, sink: SpanSink | undefined, settle: boolean, unfinished?: UnfinishedReason): void {
    const chat = this.chat
    if (chat === undefined) return
    this.chat = undefined
    if (chat.row === undefined && settle) {
      const row = this.replay.settle()
      if (row?.seq === chat.seq) chat.row = row
    }
    chat.closing(chat.record.attributes)
    if (unfinished !== undefined) chat.record.attributes[BRIDLE.unfinished] = unfinished
    const usage = chat.usage
    if (usage !== undefined && this.turn !== undefined) this.turn.usage = addUsage(this.turn.usage, usage)
    close(chat.record, chat.doneTime ?? time, sink)
  }

  private openTool(event: AnySessionEvent, sink: SpanSink | undefined): void {
    const callId = (event.data as { callId?: unknown } | null)?.callId
    if (typeof callId !== 'string' || this.tools.has(callId)) return
    const record = openToolSpan(event, this.turn?.record, this.ctx)
    this.tools.set(callId, record)
    sink?.open(record)
  }

  private closeTool(event: AnySessionEvent, sink: SpanSink | undefined): void {
    const callId = resultCallId(event)
    const record = callId === undefined ? undefined : this.tools.get(callId)
    if (record === undefined) return
    toolResultAttributes(record, event, this.ctx)
    this.closeToolAt(callId!, event.time, undefined, sink)
  }

  private closeToolAt(
    callId: string,
    time: number,
    unfinished: UnfinishedReason | undefined,
    sink: SpanSink | undefined,
  ): void {
    const record = this.tools.get(callId)
    if (record === undefined) return
    this.tools.delete(callId)
    if (unfinished !== undefined) record.attributes[BRIDLE.unfinished] = unfinished
    close(record, time, sink)
  }

  private redact(text: string): string {
    return redactedText(text, this.ctx.redaction)
  }
}

/** Closes `record` at `time` (its closing attributes set) and tells the sink. */
function close(record: SpanRecord, time: number, sink: SpanSink | undefined): void {
  record.endTime = time
  sink?.close(record)
}
