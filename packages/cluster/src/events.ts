import type { FinishOutcome } from './queue.js'

/** The worker's events (README, "Events"), declared where cordis reads them. */

/** How a job ended, as `cluster/job-finished` reports it. */
export type JobOutcome = FinishOutcome | 'missing' | 'failed' | 'handed-back'

export interface JobStartedPayload {
  readonly session: string
  readonly job: string
  /** How many times pg-boss activated this job before (0 on the first run; more after a crash or a hand-back). */
  readonly retry: number
}

export interface JobFinishedPayload extends JobStartedPayload {
  readonly outcome: JobOutcome
  /** The session's previous worker had stopped mid-turn, and this job put back what that turn left undone. */
  readonly continued: boolean
  readonly error?: unknown
}

declare module 'cordis' {
  interface Events {
    /** A worker took a session's job and is about to resume it. */
    'cluster/job-started'(payload: JobStartedPayload): void
    /** A worker is done with a session's job: its events are durable and the job is completed, or handed back. */
    'cluster/job-finished'(payload: JobFinishedPayload): void
  }
}
