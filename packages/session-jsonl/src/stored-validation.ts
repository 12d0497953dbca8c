import {
  interruptedTurnClosers,
  KNOWN_SESSION_EVENT_TYPES,
  SessionFormatUnsupportedError,
  SessionPersistenceCorruptionError,
  type SessionEvent,
} from '@bridle/session'

/** A stored log that passed validation: its events with the closers of an interrupted turn appended. */
export interface ValidatedEvents<Built> {
  readonly balanced: SessionEvent[]
  /** The closers appended to `balanced` (computed, never written). */
  readonly closers: SessionEvent[]
  /** What `build` made of the balanced events. */
  readonly built: Built
}

/**
 * The checks every backend runs on a stored log before anyone sees it (docs/persistence.md#the-committed-region), in
 * this order: legacy vocabulary, then unknown types not marked ignorable (`SessionFormatUnsupportedError`, never
 * wrapped), then `build` (a full restore) of the events balanced with the closers of an interrupted turn. Failures of
 * the first and last check are wrapped as `stored session "<id>" failed validation: <err>`. `location` names the
 * stored log in errors (a path, a database URL); `kind` is the backend's location kind.
 */
export function validateStoredEvents<Built>(
  id: string,
  events: SessionEvent[],
  where: { readonly kind: string; readonly location: string },
  extraEventTypes: ReadonlySet<string>,
  build: (balanced: SessionEvent[]) => Built,
): ValidatedEvents<Built> {
  const { location } = where
  const wrap = (error: unknown) =>
    new SessionPersistenceCorruptionError(`stored session "${id}" failed validation: ${String(error)}`, {
      cause: error,
      path: location,
    })
  for (const event of events) {
    const legacy = legacyMessage(id, event)
    if (legacy !== undefined) throw wrap(new Error(legacy))
  }
  for (const event of events) {
    if (KNOWN_SESSION_EVENT_TYPES.has(event.type) || extraEventTypes.has(event.type)) continue
    if ((event as { ignorable?: unknown }).ignorable === true) continue
    throw formatUnsupported(
      `session "${id}" contains event type "${event.type}" (seq ${event.seq}) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness`,
      where,
    )
  }
  const closers = interruptedTurnClosers(events) as unknown as SessionEvent[]
  const balanced = closers.length === 0 ? events : events.concat(closers)
  let built: Built
  try {
    built = build(balanced)
  } catch (error) {
    throw wrap(error)
  }
  return { balanced, closers, built }
}

/** A stored log this harness must not interpret (written by a newer one), naming where it is. */
export function formatUnsupported(
  message: string,
  where: { readonly kind: string; readonly location: string },
): SessionFormatUnsupportedError {
  return new SessionFormatUnsupportedError(`${message} (raw log: ${where.location})`, {
    kind: where.kind,
    path: where.location,
  })
}

function legacyMessage(id: string, event: SessionEvent): string | undefined {
  const type = event.type as string
  if (type === 'request/header-delta')
    return `session "${id}" contains unsupported legacy request/header-delta event at seq ${event.seq}`
  if (type === 'mode/set') return `session "${id}" contains unsupported legacy mode/set event at seq ${event.seq}`
  if (type === 'request/header') {
    const data = event.data as { reason?: unknown } | null
    if (typeof data === 'object' && data !== null && data.reason === 'fallback') {
      return `session "${id}" contains unsupported legacy request/header reason "fallback" at seq ${event.seq}`
    }
  }
  return undefined
}

/** Adoption refuses a stored log written at another cwd: the same id in two places is a collision. */
export function assertSameCwd(id: string, persisted: string | undefined, live: string | undefined): void {
  if (persisted !== live) {
    throw new Error(
      `session "${id}" is already persisted at a different cwd (persisted: ${persisted}, live: ${live}) (id collision)`,
    )
  }
}
