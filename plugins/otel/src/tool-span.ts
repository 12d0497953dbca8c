/**
 * One `execute_tool` span: a tool call from its `tool/call` to its `tool/result`. A result with an error (the
 * tool threw, was refused, never started or was cancelled) makes an error span.
 */
import type { AnySessionEvent } from '@bridle/session'
import type { ContentBlock } from '@bridle/llm'
import type { FoldContext } from './chat-span.js'
import { redactedText, resultText } from './content.js'
import type { Attributes, SpanRecord } from './records.js'
import { BRIDLE, ERROR_TYPE, GEN_AI, OPERATION } from './semconv.js'

interface ToolCallData {
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly name: string
  readonly arguments: string
}

interface ToolResultData {
  readonly message: { readonly source?: { readonly callId?: string }; readonly content?: readonly ContentBlock[] }
  readonly error?: { readonly name?: string; readonly code?: string }
}

/** The call id a `tool/result` answers. */
export const resultCallId = (event: AnySessionEvent): string | undefined =>
  (event.data as ToolResultData | null)?.message?.source?.callId

/** The span a `tool/call` opens, under the turn's span. */
export function openToolSpan(event: AnySessionEvent, parent: SpanRecord | undefined, ctx: FoldContext): SpanRecord {
  const data = event.data as ToolCallData
  const attributes: Attributes = {}
  attributes[GEN_AI.operationName] = OPERATION.executeTool
  attributes[GEN_AI.toolName] = data.name
  attributes[GEN_AI.toolCallId] = data.callId
  attributes[GEN_AI.toolType] = 'function'
  attributes[GEN_AI.conversationId] = ctx.sessionId
  attributes[BRIDLE.sessionId] = ctx.sessionId
  attributes[BRIDLE.turn] = data.turn
  attributes[BRIDLE.step] = data.step
  if (ctx.content && typeof data.arguments === 'string')
    attributes[GEN_AI.toolCallArguments] = redactedText(data.arguments, ctx.redaction)
  return {
    parent,
    name: `${OPERATION.executeTool} ${data.name}`,
    kind: 'internal',
    startTime: event.time,
    endTime: undefined,
    attributes,
    status: undefined,
  }
}

/** Sets the attributes a tool span closes with at its `tool/result` on its record, and a failed call's error status. */
export function toolResultAttributes(record: SpanRecord, event: AnySessionEvent, ctx: FoldContext): void {
  const data = event.data as ToolResultData
  const block = data.message?.content?.[0]
  const result = block?.type === 'tool-result' ? block : undefined
  const a = record.attributes
  if (data.error !== undefined || result?.isError === true) {
    const type = data.error?.code ?? data.error?.name ?? 'TOOL_ERROR'
    a[ERROR_TYPE] = type
    record.status = { code: 'error', message: `${String(record.attributes[GEN_AI.toolName])} failed (${type})` }
  }
  if (ctx.content && result !== undefined)
    a[GEN_AI.toolCallResult] = redactedText(resultText(result.content), ctx.redaction)
}
