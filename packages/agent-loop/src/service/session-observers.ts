import { onUntraced } from '@bridle/scope'
import type { Session, SessionEvent } from '@bridle/session'
import type { Context } from 'cordis'

/**
 * The loop's one `session/event` listener, routing each committed event to the agent whose session it is. With a
 * listener per agent, every append filtered every live agent's listener (O(live agents) per append, the cost that
 * grew a turn with the number of agents in the Context); a map lookup is O(1).
 */
export class SessionObservers {
  private readonly bySession = new Map<Session, (event: SessionEvent) => void>()

  /**
   * Registers the listener on the loop's own context; it goes when the loop unloads. Untraced: the event carries a
   * session and plain data, so upstream's per-call tracing of the arguments would only cost time on every append.
   */
  constructor(ctx: Context) {
    onUntraced(ctx, 'session/event', (session: Session, event: SessionEvent) => this.bySession.get(session)?.(event))
  }

  /** Routes `session`'s events to `observe` for as long as `owner` (the agent's scope) lives. */
  observe(owner: Context, session: Session, observe: (event: SessionEvent) => void): void {
    owner.effect(() => {
      this.bySession.set(session, observe)
      return () => {
        if (this.bySession.get(session) === observe) this.bySession.delete(session)
      }
    })
  }
}
