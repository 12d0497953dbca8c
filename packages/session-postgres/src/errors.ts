/** Who holds a session's lease, as read from the database. */
export interface LeaseHolder {
  readonly owner: string
  /** When the lease expires unless its holder renews it (database clock). */
  readonly expiresAt: Date
  /** The holder's fencing token. */
  readonly token: number
}

/**
 * Another writer holds the session's lease: resuming (or repairing) it now would put two writers on one log.
 * Carries the holder, the expiry and the fencing token; retry after `expiresAt`, or ask to wait (`leaseWaitMs`).
 */
export class SessionLeasedError extends Error {
  override name = 'SessionLeasedError'
  readonly sessionId: string
  readonly holder: string
  readonly expiresAt: Date
  readonly token: number

  constructor(sessionId: string, holder: LeaseHolder, waitedMs = 0) {
    const waited = waitedMs > 0 ? ` (waited ${waitedMs} ms)` : ''
    super(
      `session "${sessionId}" is leased by "${holder.owner}" until ${holder.expiresAt.toISOString()} ` +
        `(fencing token ${holder.token})${waited}: another process is writing it; resume it after the lease expires, ` +
        'or set leaseWaitMs to wait for it',
    )
    this.sessionId = sessionId
    this.holder = holder.owner
    this.expiresAt = holder.expiresAt
    this.token = holder.token
  }
}

/**
 * This process lost the session's lease (it was paused or cut off past the expiry and another process took the
 * session over): the database refused its batch by the fencing token, nothing of the batch was written, and the
 * session rejects every later write. The new owner's log never interleaves with this writer's events.
 */
export class SessionLeaseLostError extends Error {
  override name = 'SessionLeaseLostError'
  readonly sessionId: string
  /** The token this writer held. */
  readonly token: number
  /** The current holder (`undefined` when the lease is free now) and its token. */
  readonly holder: string | undefined
  readonly currentToken: number

  constructor(sessionId: string, token: number, current: { owner: string | undefined; token: number }, seqs: string) {
    const now = current.owner === undefined ? 'the lease is free now' : `"${current.owner}" holds it now`
    super(
      `session "${sessionId}": this process lost its lease (fencing token ${token}; ${now} with token ${current.token}); ` +
        `the batch of ${seqs} was rejected and nothing of it was written`,
    )
    this.sessionId = sessionId
    this.token = token
    this.holder = current.owner
    this.currentToken = current.token
  }
}

/**
 * The database could not be reached (or went away mid-statement) while writing a batch. Nothing is lost: the
 * events stay queued and the backend retries; the batch is either wholly written or not at all.
 */
export class SessionStoreUnavailableError extends Error {
  override name = 'SessionStoreUnavailableError'

  constructor(sessionId: string, pending: number, cause: unknown) {
    super(
      `session-postgres: the database is unreachable (${String(cause)}); session "${sessionId}" keeps its ` +
        `${pending} unwritten event${pending === 1 ? '' : 's'} queued and retries`,
      { cause },
    )
  }
}
