import type { AssistantMessage, Message, StreamChunk, TokenUsage } from '@bridle/llm'
import {
  isReplacementSurfaceEvent,
  summarizeEvents,
  undigestedSteps,
  verifyDigests,
  type AnySessionEvent,
  type EpochHeader,
  type RequestDigestRecord,
  type SessionHeader,
} from '@bridle/session'
import type {
  RequestRow,
  SessionSummary,
  SessionView,
  StepRow,
  TokenUsageView,
  TurnRow,
  VerifyState,
} from '../types.js'
import { describeSource, describeTurnEnd, plainText } from './describe.js'
import { requestFacts, type SessionFacts } from './replayed.js'

type Data = Record<string, unknown>

const usageView = (usage: TokenUsage): TokenUsageView => ({
  input: usage.inputTokens,
  cached: usage.cacheReadTokens ?? 0,
  output: usage.outputTokens,
  ...(usage.cacheWriteTokens !== undefined ? { cacheWrite: usage.cacheWriteTokens } : {}),
  ...(usage.reasoningTokens !== undefined ? { reasoning: usage.reasoningTokens } : {}),
})

/** A chunk that carries model output (the first one times the first token). */
const isOutput = (chunk: StreamChunk): boolean =>
  chunk.type === 'text-delta' || chunk.type === 'reasoning-delta' ? chunk.text !== '' : chunk.type === 'tool-call-delta'

/** Verification of a whole log: `none` when nothing was digested. */
export function verifyState(results: readonly { ok: boolean }[]): VerifyState {
  if (results.length === 0) return 'none'
  return results.every((r) => r.ok) ? 'ok' : 'failed'
}

/** The sessions-page row of a log; `results` are its `verifyDigests` (computed here when not given). */
export function sessionSummary(
  meta: SessionHeader,
  events: readonly AnySessionEvent[],
  results: readonly { ok: boolean }[] = verifyDigests(events),
): SessionSummary {
  // the model and first prompt as `bridle sessions` finds them
  const { model, firstPrompt } = summarizeEvents(meta, '', events)
  return {
    id: meta.id,
    createdAt: meta.createdAt,
    lastActivity: events.at(-1)?.time ?? meta.createdAt,
    turns: events.reduce((n, e) => (e.type === 'turn/start' ? n + 1 : n), 0),
    requests: results.length,
    verify: verifyState(results),
    ...(model ? { model: `${model.provider}/${model.model}` } : {}),
    ...(firstPrompt !== undefined ? { firstPrompt } : {}),
  }
}

/**
 * Everything the session page shows, from one pass over the log plus one replay of its requests (`requestFacts`:
 * ✓/✗ per request from `verifyDigests`, and from `cachePrefixReport` what of the previous prompt each request kept,
 * and why not). A caller that replays the log for more than this passes the facts it folded as `known`.
 */
export function sessionView(
  meta: SessionHeader,
  events: readonly AnySessionEvent[],
  known: SessionFacts = requestFacts(events),
): SessionView {
  const { verifications: results, facts } = known
  const turns: TurnRow[] = []
  const replacements: SessionView['replacements'] = []
  const calls = new Map<string, StepRow['toolCalls'][number]>()
  let header: EpochHeader | undefined
  let request: { row: RequestRow; time: number } | undefined

  for (const event of events) {
    const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Data
    const turn = turns.at(-1)
    const step = turn?.steps.at(-1)
    const mine = step !== undefined && data.turn === step.turn && data.step === step.step
    if (isReplacementSurfaceEvent(event)) {
      const message = (event.type === 'user/message' ? event.data : data.message) as Message | undefined
      replacements.push({
        seq: event.seq,
        time: event.time,
        replaced: [...(event.sourceEventSeqs ?? [])],
        text: message ? plainText(message.content) : '',
      })
    }
    switch (event.type) {
      case 'turn/start':
        turns.push({ turn: data.turn as number, startSeq: event.seq, startTime: event.time, steps: [] })
        break
      case 'turn/end':
        if (turn) {
          const reason = data.reason as { kind: string }
          turn.end = describeTurnEnd(reason)
          if (reason?.kind === 'interrupted') turn.interrupted = true
        }
        break
      case 'step/start':
        turn?.steps.push({
          turn: data.turn as number,
          step: data.step as number,
          startSeq: event.seq,
          startTime: event.time,
          requests: [],
          toolCalls: [],
          entered: [],
        })
        break
      case 'step/end':
        if (mine) step.endSeq = event.seq
        break
      case 'user/message':
        if (step && event.surfaceOp === 'append') {
          const message = event.data as Message
          step.entered.push({
            seq: event.seq,
            role: message.role,
            source: describeSource(message),
            text: plainText(message.content),
          })
        }
        break
      case 'request/header':
        header = (data as { header: EpochHeader }).header
        break
      case 'request/digest': {
        if (!step) break
        const record = data as unknown as RequestDigestRecord
        const known = facts.get(event.seq)
        const v = known?.verification
        const row = known?.cache
        const config = (header?.config ?? {}) as unknown as Data
        const requestRow: RequestRow = {
          seq: event.seq,
          turn: record.turn,
          step: record.step,
          attempt: record.attempt,
          provider: String(config.provider ?? '?'),
          model: String(config.model ?? '?'),
          verify: v
            ? { ok: v.ok, mismatched: [...v.mismatched], ...(v.error ? { error: v.error } : {}) }
            : { ok: false, mismatched: [], error: 'not verified' },
        }
        if (known?.prefixShare !== undefined) requestRow.prefixShare = known.prefixShare
        if (row) {
          if (known?.breakCause !== undefined) requestRow.breakCause = known.breakCause
          // marked on the page as `inspect --cache` and `--verify` mark it
          if (row.purpose === 'compaction') requestRow.purpose = 'summary request'
        }
        step.requests.push(requestRow)
        request = { row: requestRow, time: event.time }
        break
      }
      case 'assistant/chunk': {
        if (!mine || !request) break
        const chunk = data.chunk as StreamChunk
        if (request.row.firstTokenMs === undefined && isOutput(chunk))
          request.row.firstTokenMs = event.time - request.time
        if (chunk.type === 'finish') request.row.stopReason = chunk.reason.kind
        if (chunk.type === 'usage' && !request.row.usage) request.row.usage = usageView(chunk.usage)
        break
      }
      case 'assistant/message': {
        if (!mine) break
        const message = data.message as AssistantMessage
        if (request) {
          request.row.latencyMs = event.time - request.time
          if (data.usage) request.row.usage = usageView(data.usage as TokenUsage)
        }
        const text = plainText(message.content)
        if (text) step.answer = text
        const reasoning = message.content
          .filter((b) => b.type === 'reasoning')
          .map((b) => (b as { text: string }).text)
          .join('\n')
        if (reasoning) step.reasoning = reasoning
        break
      }
      case 'tool/call': {
        if (!mine) break
        const call = { callId: String(data.callId), name: String(data.name), arguments: String(data.arguments) }
        step.toolCalls.push(call)
        calls.set(call.callId, call)
        break
      }
      case 'tool/result': {
        const message = data.message as Message
        const source = message?.source as { kind?: string; callId?: string } | undefined
        const call = source?.callId !== undefined ? calls.get(source.callId) : undefined
        if (!call || !message) break
        const block = message.content.find((b) => b.type === 'tool-result') as { isError?: true } | undefined
        const error = data.error as { code?: string } | undefined
        call.result = {
          text: plainText(message.content),
          isError: block?.isError === true,
          ...(error?.code ? { code: error.code } : {}),
        }
        break
      }
    }
  }

  return {
    summary: sessionSummary(meta, events, results),
    ...(meta.cwd !== undefined ? { cwd: meta.cwd } : {}),
    turns,
    replacements,
    undigested: undigestedSteps(events).map(({ turn, step }) => ({ turn, step })),
    events: events.length,
  }
}
