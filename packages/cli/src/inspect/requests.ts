import { modelViewDigests, replayRequests, type ModelViewDigests, type SessionEvent } from '@bridle/session'

/** One request of `inspect --json`'s `requests`: where it was sent, its recorded digest, and its model-view digests. */
export interface RequestDigestRow {
  turn: number
  step: number
  attempt: number
  /** Seq of its `request/digest`. */
  seq: number
  /** `'compaction'` for a summary request. */
  purpose?: 'compaction'
  /** The `request` digest the log recorded before the call: proves this session's request (ids and sources included). */
  digest: string
  /**
   * Digests of what the model was shown (no message ids or sources), so requests of two sessions can be compared
   * (docs/provability.md#comparing-requests-across-sessions); absent when the log cannot rebuild the request.
   */
  model?: ModelViewDigests
}

/** Every digested request of the log, in order, with its model-view digests. */
export function requestDigestRows(events: readonly SessionEvent[]): RequestDigestRow[] {
  const rows: RequestDigestRow[] = []
  for (const replayed of replayRequests(events)) {
    const { turn, step, attempt, request } = replayed.record
    rows.push({
      turn,
      step,
      attempt,
      seq: replayed.seq,
      ...(replayed.rebuilt?.purpose !== undefined ? { purpose: replayed.rebuilt.purpose } : {}),
      digest: request,
      ...(replayed.rebuilt !== undefined ? { model: modelViewDigests(replayed.rebuilt.request) } : {}),
    })
  }
  return rows
}
