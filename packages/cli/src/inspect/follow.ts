import type { SessionEvent, SessionPersistence } from '@bridle/session'
import { UsageError } from '../errors.js'
import { oneLine, type Io, type Paint } from '../terminal.js'
import { describeEvent } from './describe.js'

/** How many complete event records the stored session holds (its raw text: a header line, then one line each). */
async function storedCount(persistence: SessionPersistence, id: string): Promise<number> {
  const raw = await persistence.readRaw(id)
  if (raw === undefined) return 0
  return Math.max(0, raw.content.split('\n').length - 2)
}

/**
 * One followed event: its seq, type and a short detail, as in `inspect --events`; `--json` prints the event.
 * `toolNames` (call id → tool name) grows with the `tool/call` events followed, so a result names its tool.
 */
function renderFollowed(event: SessionEvent, p: Paint, json: boolean, toolNames = new Map<string, string>()): string {
  if (event.type === 'tool/call') toolNames.set(String(event.data.callId), event.data.name)
  if (json) return JSON.stringify(event) + '\n'
  return `  ${String(event.seq).padStart(4)} ${event.type.padEnd(20)} ${p.dim(oneLine(describeEvent(event, toolNames), 70))}\n`
}

/** A usage error unless `persistence` can follow a live session (`follow`): checked before anything is printed. */
export function checkCanFollow(persistence: SessionPersistence): void {
  if (typeof persistence.follow !== 'function') {
    throw new UsageError(
      '--follow needs a session backend that can follow a live session (such as @bridle/session-postgres); this app uses one that cannot, so nothing was shown (drop --follow to print the session once)',
    )
  }
}

/**
 * `bridle inspect ID --follow`: after the overview, prints each event as it is written — by any process — until
 * Ctrl-C (SIGINT) or SIGTERM. Needs a backend with `follow` (session-postgres); a usage error otherwise.
 */
export async function followSession(
  persistence: SessionPersistence,
  id: string,
  io: Io,
  p: Paint,
  json: boolean,
): Promise<void> {
  checkCanFollow(persistence)
  const follow = persistence.follow!.bind(persistence)
  const abort = new AbortController()
  const stop = () => abort.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    const from = await storedCount(persistence, id)
    io.err(`bridle: following session ${id} from seq ${from}; Ctrl-C to stop\n`)
    const toolNames = new Map<string, string>()
    for await (const event of follow(id, { from, signal: abort.signal }))
      io.out(renderFollowed(event, p, json, toolNames))
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}
