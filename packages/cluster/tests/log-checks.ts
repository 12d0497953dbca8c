import { verifyDigests, type SessionEvent } from '@bridle/session'
import { CLUSTER_PLUGIN } from '../src/index.js'

interface Entered {
  readonly id: string
  readonly source: { kind: string; plugin?: string }
}

/** What a session's log shows about its writers and its answers. */
export interface LogReport {
  /** Broken rules: two writers interleaved, a turn inside a turn, a digest that does not verify, … */
  readonly problems: string[]
  /** Human message id → how many times it entered the log. */
  readonly entered: Map<string, number>
  /** Human message ids whose turn (or the turns continuing it) ended `completed` with an answer. */
  readonly answered: Set<string>
  readonly interruptedTurns: number
  readonly continuationTurns: number
  readonly requestsVerified: number
}

/**
 * Checks a stored log the way a second writer would break it. Turns must follow each other (each `turn/start` after
 * the previous `turn/end`, numbered one up), every event carrying a turn number must belong to the open turn, a new
 * writer's `session/end-seed` may only stand between turns, and every request digest must verify (a request rebuilt
 * from the log is the one that was sent, which two interleaved writers would break).
 */
export function checkLog(id: string, events: readonly SessionEvent[]): LogReport {
  const problems: string[] = []
  const entered = new Map<string, number>()
  const answered = new Set<string>()
  let open: number | undefined
  let last = 0
  let waiting: string[] = [] // human messages of the open turn and of the interrupted turns before it
  let interruptedTurns = 0
  let continuationTurns = 0
  let firstEntered = true
  events.forEach((event, seq) => {
    const where = `session "${id}" seq ${seq}`
    if (event.seq !== seq) problems.push(`${where}: carries seq ${event.seq}`)
    const data = event.data as { turn?: number; reason?: { kind: string }; source?: unknown }
    switch (event.type) {
      case 'turn/start':
        if (open !== undefined) problems.push(`${where}: turn ${data.turn} starts inside turn ${open}`)
        if (data.turn !== last + 1) problems.push(`${where}: turn ${data.turn} follows turn ${last}`)
        open = data.turn
        firstEntered = true
        return
      case 'turn/end': {
        if (open !== data.turn) problems.push(`${where}: turn/end ${data.turn} while turn ${open} is open`)
        last = data.turn ?? last
        open = undefined
        const kind = data.reason?.kind
        if (kind === 'interrupted') interruptedTurns++
        if (kind === 'completed') {
          for (const m of waiting) answered.add(m)
          waiting = []
        } else if (kind !== 'interrupted' && !(kind === 'aborted')) {
          waiting = []
        }
        return
      }
      case 'session/end-seed':
        if (open !== undefined) problems.push(`${where}: a writer started inside turn ${open}`)
        return
      case 'user/message': {
        const message = event.data as unknown as Entered
        if (firstEntered && message.source.kind === 'plugin' && message.source.plugin === CLUSTER_PLUGIN)
          continuationTurns++
        if (message.source.kind === 'user') {
          entered.set(message.id, (entered.get(message.id) ?? 0) + 1)
          waiting.push(message.id)
        }
        firstEntered = false
        break
      }
    }
    if (typeof data?.turn === 'number' && data.turn !== open) {
      problems.push(`${where}: ${event.type} of turn ${data.turn} outside it (open: ${open})`)
    }
  })
  if (open !== undefined) problems.push(`session "${id}": turn ${open} never ended`)
  const verified = verifyDigests(events)
  for (const row of verified.filter((r) => !r.ok))
    problems.push(`session "${id}": ${JSON.stringify(row)} does not verify`)
  return {
    problems,
    entered,
    answered,
    interruptedTurns,
    continuationTurns,
    requestsVerified: verified.length,
  }
}
