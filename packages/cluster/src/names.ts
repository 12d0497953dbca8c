import { createHash } from 'node:crypto'

/** The names one cluster uses in the database: derived from the schemas and the queue, so two clusters never mix. */
export interface ClusterNames {
  /** The schema of the session tables (`@bridle/session-postgres`'s `schema`). */
  readonly sessionSchema: string
  /** The schema pg-boss keeps its tables in (its own, in the same database). */
  readonly queueSchema: string
  /** The pg-boss queue of session jobs. */
  readonly queue: string
  /** NOTIFY channel: a job was enqueued (the workers' wake-up path). */
  readonly jobsChannel: string
  /** NOTIFY channel: a session's rows were written (the event streams' wake-up path); the payload is the id. */
  readonly writtenChannel: string
  /** `"<sessionSchema>".messages`, the durable inbox of posted messages. */
  readonly messagesTable: string
  /** `"<sessionSchema>".events`. */
  readonly eventsTable: string
  /** `"<sessionSchema>".sessions`. */
  readonly sessionsTable: string
  /** `"<queueSchema>".job`. */
  readonly jobTable: string
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16)

/** A lower-case SQL identifier, as both schemas must be. */
export const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/

/** The names of the cluster over `sessionSchema`, with pg-boss in `queueSchema` and jobs in `queue`. */
export function clusterNames(sessionSchema: string, queueSchema: string, queue: string): ClusterNames {
  for (const [what, name] of [
    ['session schema', sessionSchema],
    ['queue schema', queueSchema],
  ] as const) {
    if (!IDENTIFIER.test(name))
      throw new TypeError(`cluster: the ${what} must be a lower-case SQL identifier, got "${name}"`)
  }
  return Object.freeze({
    sessionSchema,
    queueSchema,
    queue,
    jobsChannel: `bridle_jobs_${hash(`${queueSchema}/${queue}`)}`,
    writtenChannel: `bridle_written_${hash(sessionSchema)}`,
    messagesTable: `"${sessionSchema}".messages`,
    eventsTable: `"${sessionSchema}".events`,
    sessionsTable: `"${sessionSchema}".sessions`,
    jobTable: `"${queueSchema}".job`,
  })
}

/** What a job carries: the session it serves. */
export interface SessionJobData {
  readonly session: string
}
