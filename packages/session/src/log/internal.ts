/**
 * Package-private wiring between `Session` and `SessionStore`. Not re-exported from the package face.
 */
import type { AnySessionEvent } from '../events/events.js'

/** How an attached session publishes its appends (docs/session-events.md#how-an-append-is-published). */
export interface SessionPublisher {
  /** Prepare: resolve the `session/event` listeners and notify `internal/event`. A throw vetoes the append. */
  prepare(event: AnySessionEvent): unknown
  /** Notify: call the resolved observers; every failure is contained and logged. */
  notify(prepared: unknown, event: AnySessionEvent): void
  /** Called once the publication (prepare, commit, notify) has unwound, successful or not. */
  settled(): void
}

/** Slot on a `Session` holding its publisher while it is attached to a store. */
export const PUBLISHER: unique symbol = Symbol('bridle.session.publisher')
/** Slot on a `Session` telling whether an append is being published right now. */
export const PUBLISHING: unique symbol = Symbol('bridle.session.publishing')
