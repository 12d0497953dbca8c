import {
  KNOWN_SESSION_EVENT_TYPES,
  type Session,
  type SessionEvent,
  type SessionInspection,
  type SessionPreparation,
  type SessionStore,
} from '@bridle/session'
import { onUntraced, ownedEffect } from '@bridle/scope'
import type { Context } from 'cordis'

/** What `ctx.sessions` tells a durable backend about its live sessions. */
export interface SessionHooks {
  onCreated(session: Session): void
  onEvent(session: Session, event: SessionEvent): void
  onFlush(session: Session): Promise<void> | undefined
  onDisposed(session: Session): void
}

/**
 * Subscribes `backend` to the session store's events on `ctx` (removed with the plugin that owns `ctx`). Untraced:
 * `session/event` runs for every event, and the arguments are sessions and events, not services.
 */
export function listenToSessions(ctx: Context, backend: SessionHooks): void {
  onUntraced(ctx, 'session/created', ((session: Session) => backend.onCreated(session)) as never)
  onUntraced(ctx, 'session/event', ((session: Session, event: SessionEvent) =>
    backend.onEvent(session, event)) as never)
  onUntraced(ctx, 'session/flush', ((session: Session) => backend.onFlush(session)) as never)
  onUntraced(ctx, 'session/disposed', ((session: Session) => backend.onDisposed(session)) as never)
}

/**
 * A backend's `resume`: enters and announces a prepared session on the caller's context (as `ctx.sessions.create`
 * does) and returns it; disposing the caller detaches it. If announcing throws, the preparation is disposed and the
 * error rethrown.
 */
export function enterPrepared(caller: Context, preparation: SessionPreparation): Session {
  const session = preparation.session
  try {
    ownedEffect(caller, () => {
      const detach = caller.sessions.enter(session)
      try {
        caller.sessions.announce(session)
      } catch (error) {
        detach()
        throw error
      }
      return detach
    })
  } catch (error) {
    preparation[Symbol.dispose]()
    throw error
  }
  preparation[Symbol.dispose]()
  return session
}

/** A backend's `load` of a live session: flushed, then a snapshot; refused while its last turn is open. */
export async function loadLive(sessions: SessionStore, live: Session): Promise<SessionInspection> {
  const events = live.events
  if (hasOpenTurn(events)) {
    throw new Error(
      `cannot load session "${live.id}" while its live turn is open; use the live Session or wait for the turn to close`,
    )
  }
  await sessions.flush(live)
  return Object.freeze({ meta: live.header, events })
}

/** True when the last `turn/start` of `events` has no `turn/end` after it. */
function hasOpenTurn(events: readonly SessionEvent[]): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type as string
    if (type === 'turn/end') return false
    if (type === 'turn/start') return true
  }
  return false
}

/**
 * Warns once per type when a live session persists an event type no reader would accept (neither a known type nor
 * one of `extraEventTypes`): the log would refuse to load, and the user should hear it while the session runs.
 */
export class UndeclaredTypeWarning {
  private readonly warned = new Set<string>()

  constructor(
    private readonly plugin: string,
    private readonly extraEventTypes: ReadonlySet<string>,
    private readonly warn: (message: string) => void,
  ) {}

  check(session: Session, event: SessionEvent): void {
    const type = event.type as string
    if (KNOWN_SESSION_EVENT_TYPES.has(type) || this.extraEventTypes.has(type) || this.warned.has(type)) return
    this.warned.add(type)
    this.warn(
      `${this.plugin}: session "${session.id}" persisted event type "${type}" that is not in KNOWN_SESSION_EVENT_TYPES or extraEventTypes; the log will refuse to load until it is declared`,
    )
  }
}
