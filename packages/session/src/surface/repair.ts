/**
 * Crash repair (docs/surface-and-reconstruction.md#closing-an-interrupted-turn): the synthetic events that close a turn
 * left open by a crash.
 */
import type { AnySessionEvent, SessionEventEnvelope } from '../events/events.js'

export const TOOL_NOT_STARTED = 'TOOL_NOT_STARTED'
export const TOOL_OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'

const OUTCOME_UNKNOWN_TEXT =
  'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. ' +
  'Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may ' +
  'have side effects, first verify external state or ask the user. Do not retry blindly.'
const NOT_STARTED_TEXT =
  'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.'

interface PendingCall {
  readonly step: unknown
  callSeq?: number
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}

/**
 * Returns the events that close the open turn of `events` (empty when no turn is open): one `tool/result` per call
 * still pending (in registration order), `step/end` if a step is open, then `turn/end {kind:'interrupted'}`. Seqs
 * follow the last event and every closer carries the last event's time, so repair is deterministic. Pure; does not
 * detect torn tails.
 */
export function interruptedTurnClosers(events: readonly AnySessionEvent[]): SessionEventEnvelope[] {
  let turn: unknown
  let openTurn = false
  let openStep: unknown
  let stepOpen = false
  const pending = new Map<string, PendingCall>()

  for (const event of events) {
    const data = record(event.data)
    switch (event.type) {
      case 'turn/start':
        openTurn = true
        turn = data.turn
        stepOpen = false
        openStep = undefined
        pending.clear()
        break
      case 'turn/end':
        openTurn = false
        stepOpen = false
        openStep = undefined
        pending.clear()
        break
      case 'step/start':
        stepOpen = true
        openStep = data.step
        break
      case 'step/end':
        pending.clear()
        stepOpen = false
        openStep = undefined
        break
      case 'assistant/message': {
        const content = record(data.message).content
        if (!Array.isArray(content)) break
        for (const block of content) {
          const b = record(block)
          if (b.type === 'tool-call' && typeof b.id === 'string') pending.set(b.id, { step: data.step })
        }
        break
      }
      case 'tool/call': {
        const call = typeof data.callId === 'string' ? pending.get(data.callId) : undefined
        if (call) call.callSeq = event.seq
        break
      }
      case 'tool/result': {
        const callId = record(record(record(data.message).source)).callId
        if (typeof callId === 'string') pending.delete(callId)
        break
      }
    }
  }

  const last = events.at(-1)
  if (!openTurn || last === undefined) return []
  const time = last.time
  let seq = last.seq
  const closers: SessionEventEnvelope[] = []
  for (const [callId, call] of pending) {
    seq++
    const recorded = call.callSeq !== undefined
    const message = {
      id: `interrupted-tool-result-${callId}-${seq}`,
      role: 'user',
      content: [
        {
          type: 'tool-result',
          toolCallId: callId,
          isError: true,
          content: [{ type: 'text', text: recorded ? OUTCOME_UNKNOWN_TEXT : NOT_STARTED_TEXT }],
        },
      ],
      source: { kind: 'tool', callId },
    }
    const error = recorded
      ? { name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN }
      : { name: 'ToolNotStartedError', code: TOOL_NOT_STARTED }
    closers.push({
      type: 'tool/result',
      seq,
      time,
      data: { turn, step: call.step, message, error },
      surfaceOp: 'append',
      ...(recorded ? { sourceEventSeqs: [call.callSeq!] } : {}),
    })
  }
  if (stepOpen) closers.push({ type: 'step/end', seq: ++seq, time, data: { turn, step: openStep } })
  closers.push({ type: 'turn/end', seq: ++seq, time, data: { turn, reason: { kind: 'interrupted' } } })
  return closers
}
