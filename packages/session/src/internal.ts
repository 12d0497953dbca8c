/**
 * Package-private wiring between `Session` and `SessionStore`. Not re-exported from the package face.
 */
import type { AnySessionEvent } from './events.js'

/** How an attached session publishes its appends (session.md §8 steps 7 and 9). */
export interface SessionPublisher {
  /** Step 7: resolve the `session/event` listeners and notify `internal/event`. A throw vetoes the append. */
  prepare(event: AnySessionEvent): unknown
  /** Step 9: call the resolved observers; every failure is contained and logged. */
  notify(prepared: unknown, event: AnySessionEvent): void
  /** Called once the publication (steps 7–9) has unwound, successful or not. */
  settled(): void
}

/** Slot on a `Session` holding its publisher while it is attached to a store. */
export const PUBLISHER: unique symbol = Symbol('bridle.session.publisher')
/** Slot on a `Session` telling whether an append is being published right now. */
export const PUBLISHING: unique symbol = Symbol('bridle.session.publishing')
