import { callConfigEquals, HarnessError, type GenerateOptions, type Message } from '@bridle/llm'
import { foldRequestHeader, reconstructRequest, surfaceMessages, type EpochHeader, type Session } from '@bridle/session'

function invariant(message: string): HarnessError {
  return new HarnessError(message, 'INVARIANT')
}

/** What the durable log says this attempt sends, folded from scratch (no incremental caches). */
function expected(session: Session, turn: number, step: number, attempt: number) {
  const events = session.events
  if (attempt === 1) {
    const r = reconstructRequest(events, { turn, step })
    return { header: r.header as EpochHeader, messages: r.messages as readonly Message[], purpose: r.purpose }
  }
  const header = foldRequestHeader(events)
  if (!header) throw new Error(`reconstructRequest: no request/header precedes turn ${turn} step ${step}`)
  return { header, messages: surfaceMessages(events), purpose: undefined }
}

/**
 * `verifyRequests` (docs/provability.md#dispatch-time-verification): right before dispatch, checks that `request` is
 * exactly what the durable log says is being sent. Throws `HarnessError(…, 'INVARIANT')` on the first failed check;
 * errors of the reconstruction itself propagate unchanged.
 */
export function verifyRequest(
  session: Session,
  request: GenerateOptions,
  turn: number,
  step: number,
  attempt: number,
): void {
  if (!Object.isFrozen(request)) throw invariant('a loop-built request must be frozen')
  if (request.sessionId !== session.id) {
    throw invariant(`a loop-built request must carry a live session id, got "${String(request.sessionId)}"`)
  }
  if (!Object.isFrozen(request.messages)) throw invariant('a loop-built request must carry a frozen messages array')
  const e = expected(session, turn, step, attempt)
  const sent = JSON.stringify(request.messages)
  // A summary request carries the first messages of the history plus its instruction, as its request/compaction
  // record says; a conversation request carries exactly the derived history.
  const summary = request.purpose === 'compaction'
  if (
    summary !== (e.purpose === 'compaction') ||
    (!summary && sent !== JSON.stringify(session.deriveMessages())) ||
    sent !== JSON.stringify(e.messages)
  ) {
    throw invariant(
      `llm request for session "${session.id}" diverges from the dispatch-time durable derivation (log-reconstruction desync)`,
    )
  }
  const ok =
    callConfigEquals(request, e.header.config) &&
    request.system === e.header.system &&
    JSON.stringify(request.tools ?? []) === JSON.stringify(e.header.tools ?? [])
  if (!ok) throw invariant(`llm request for session "${session.id}" diverges from the folded request header`)
}
