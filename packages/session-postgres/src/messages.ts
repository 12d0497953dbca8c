import { assertContentBlocks, knownSecrets, type UserMessage } from '@bridle/llm'
import { assertMessageEventShape, jsonValueViolation } from '@bridle/session'
import type { PoolLike, Tables } from './database.js'
import type { LiveBinding } from './live-binding.js'
import { MESSAGE } from './notifications.js'

/** Which inbox queue a posted message joins: `next-turn` opens a turn, `next-step` steers the next step. */
export type PostTarget = 'next-turn' | 'next-step'

/** The outcome of `post`: the message's position in the posting order, and whether it had been posted before. */
export interface PostResult {
  /** A database-wide increasing position (a decimal string: it is a 64-bit counter). */
  readonly position: string
  /** True when a message with this id was already posted to the session (nothing new was stored). */
  readonly duplicate: boolean
}

/** The part of an agent delivery needs (`@bridle/agent-loop`'s `Agent`). */
export interface AgentLike {
  followup(message: UserMessage): void
  steer(message: UserMessage): void
  readonly disposing?: boolean
}

/**
 * Checks a posted message before anything is stored: a non-empty session id, a known target, and an identified
 * user-role message with a source and valid content blocks, made of plain JSON — what the inbox and the session log
 * will accept when the message is delivered. Throws `TypeError` naming what is wrong.
 */
export function assertPostable(sessionId: string, message: unknown, target: unknown): asserts message is UserMessage {
  if (typeof sessionId !== 'string' || sessionId.length === 0)
    throw new TypeError('post: the session id must be a non-empty string')
  if (target !== 'next-turn' && target !== 'next-step') {
    throw new TypeError(`post: target must be "next-turn" or "next-step", got ${JSON.stringify(target)}`)
  }
  const m = message as { id?: unknown; role?: unknown; content?: unknown } | null
  if (typeof m !== 'object' || m === null || typeof m.id !== 'string' || m.id.length === 0) {
    throw new TypeError('post: the message must have a non-empty string id')
  }
  if (m.role !== 'user')
    throw new TypeError(`post: message "${m.id}" must have role "user", got ${JSON.stringify(m.role)}`)
  try {
    assertMessageEventShape({ type: 'user/message', data: m }, `post: message "${m.id}"`)
  } catch (error) {
    throw new TypeError((error as Error).message)
  }
  assertContentBlocks(m.content, `post: message "${m.id}" content`)
  const violation = jsonValueViolation(m)
  if (violation !== undefined)
    throw new TypeError(`post: message "${m.id}" is not plain JSON at ${violation.path}: ${violation.reason}`)
}

/**
 * Stores a message for a session durably and notifies the session's channel, in one statement (the notification
 * is sent when the insert commits). Posting the same message id twice stores it once; a different message under a
 * taken id is refused. The session must exist in the database. Known secrets are redacted from the stored row.
 */
export async function postMessage(
  pool: PoolLike,
  tables: Tables,
  channel: string,
  sessionId: string,
  message: UserMessage,
  target: PostTarget,
): Promise<PostResult> {
  // the row is durable too: no credential this process holds is written into it (docs/security.md#the-log)
  const body = JSON.stringify(knownSecrets().redactJson(message))
  const { rows } = await pool.query(
    `WITH ins AS (
       INSERT INTO ${tables.messages} (session_id, message_id, target, body)
       SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM ${tables.sessions} WHERE id = $1)
       ON CONFLICT (session_id, message_id) DO NOTHING
       RETURNING pos)
     SELECT ins.pos, pg_notify($5, $6) FROM ins`,
    [sessionId, message.id, target, body, channel, MESSAGE + sessionId],
  )
  if (rows.length === 1) return Object.freeze({ position: String(rows[0].pos), duplicate: false })
  const existing = await pool.query(
    `SELECT pos, target, body FROM ${tables.messages} WHERE session_id = $1 AND message_id = $2`,
    [sessionId, message.id],
  )
  const row = existing.rows[0]
  if (row === undefined) throw new Error(`session "${sessionId}" not found`)
  if (row.body !== body || row.target !== target) {
    throw new Error(
      `message "${message.id}" was already posted to session "${sessionId}" with different content or target`,
    )
  }
  return Object.freeze({ position: String(row.pos), duplicate: true })
}

/**
 * Delivers posted messages to the agents of the sessions this process holds. One pass per session at a time (a
 * request during a pass runs one more pass after it). A pass reads the session's undelivered messages in posting
 * order and splices each into the agent's inbox (`followup` or `steer`) unless the session's log already holds a
 * splice of that message id — so a message reaches the log exactly once even when a notification repeats or a new
 * holder takes over. The database marks a message delivered in the same statement that makes its splice durable.
 */
export class MessageDelivery {
  private readonly running = new Map<string, Promise<void>>()
  private readonly again = new Set<string>()
  /** When the read of each pass in flight was sent (`performance.now()`). */
  private readonly reading = new Map<string, number>()

  constructor(
    private readonly pool: PoolLike,
    private readonly tables: Tables,
    private readonly bindingOf: (id: string) => LiveBinding | undefined,
    private readonly agentOf: (id: string) => AgentLike | undefined,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Requests a pass for `id`; resolves when a pass whose read of the waiting messages was sent after `after` (a
   * `performance.now()` time; default: this call) has finished (never rejects). A pass in flight or done that read
   * late enough serves the request, so the requests that follow a resume (the lease, the agent's start, the worker's
   * own) share one read.
   */
  request(id: string, after?: number): Promise<void> {
    const current = this.running.get(id)
    const read = this.reading.get(id) ?? this.bindingOf(id)?.deliveryReadAt
    if (after !== undefined && read !== undefined && read > after) return current ?? Promise.resolve()
    if (current !== undefined) {
      this.again.add(id)
      return current
    }
    const pass: Promise<void> = (async () => {
      do {
        this.again.delete(id)
        try {
          await this.pass(id)
        } catch (error) {
          this.warn(
            `session-postgres: delivering posted messages to session "${id}" failed (they stay queued): ${String(error)}`,
          )
        }
      } while (this.again.has(id))
    })().finally(() => {
      if (this.running.get(id) === pass) this.running.delete(id)
    })
    this.running.set(id, pass)
    return pass
  }

  /** Waits for every pass in flight. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()])
  }

  private async pass(id: string): Promise<void> {
    const binding = this.bindingOf(id)
    if (binding === undefined || binding.token === undefined) return
    if (this.agentOf(id) === undefined) return
    const readAt = performance.now()
    this.reading.set(id, readAt)
    try {
      await this.splice(id, binding, readAt)
    } finally {
      this.reading.delete(id)
    }
  }

  /** The part of a pass after its checks: read the waiting messages and splice each one the log does not hold. */
  private async splice(id: string, binding: LiveBinding, readAt: number): Promise<void> {
    const t = this.tables
    const { rows } = await this.pool.query(
      `SELECT message_id, target, body FROM ${t.messages}
        WHERE session_id = $1 AND delivered_seq IS NULL AND rejected IS NULL ORDER BY pos`,
      [id],
    )
    for (const row of rows as { message_id: string; target: PostTarget; body: string }[]) {
      if (this.bindingOf(id) !== binding) return
      const agent = this.agentOf(id)
      if (agent === undefined || agent.disposing) return
      const spliced = binding.seen.get(row.message_id)
      if (spliced !== undefined) {
        // Already in the log (e.g. spliced locally under the same id); mark it once that splice is durable.
        if (spliced < binding.durableCount) await this.mark(id, row.message_id, 'delivered_seq', spliced)
        continue
      }
      let message: UserMessage
      try {
        message = JSON.parse(row.body) as UserMessage
        if (row.target === 'next-turn') agent.followup(message)
        else agent.steer(message)
      } catch (error) {
        if (agent.disposing) return
        this.warn(
          `session-postgres: posted message "${row.message_id}" for session "${id}" was refused and dropped: ${String(error)}`,
        )
        await this.mark(id, row.message_id, 'rejected', String(error))
      }
    }
    binding.deliveryReadAt = readAt
  }

  private async mark(
    id: string,
    messageId: string,
    column: 'delivered_seq' | 'rejected',
    value: number | string,
  ): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.tables.messages} SET ${column} = $3 WHERE session_id = $1 AND message_id = $2 AND delivered_seq IS NULL AND rejected IS NULL`,
      [id, messageId, value],
    )
  }
}
