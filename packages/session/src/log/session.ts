/**
 * `Session`: an append-only event log whose index is `seq`, plus the views derived from it incrementally — the
 * surface, the model messages and the request facts (docs/surface-and-reconstruction.md).
 */
import { JSON_LIMITS, JsonLimitError, knownSecrets, type Message, type SessionId } from '@bridle/llm'
import type {
  AnySessionEvent,
  AppendOptions,
  EpochHeader,
  RequestContext,
  SessionEvent,
  SessionEventEnvelope,
  SessionEventMap,
} from '../events/events.js'
import { validateSessionHeader, type SessionHeader } from '../events/header.js'
import { jsonViolationError, snapshotForLog } from '../json/json.js'
import { freezeInPlace } from '../json/freeze-in-place.js'
import { MessageProjection } from '../surface/derive.js'
import { DigestAnchors, type DigestedPrefix } from '../provability/digest-anchor.js'
import { RequestFacts } from '../surface/request-header.js'
import { legacyViolation } from '../events/shape.js'
import { planSurface, SurfaceState, type SurfacePlan, type SurfaceView } from '../surface/surface.js'
import { PUBLISHER, PUBLISHING, type SessionPublisher } from './internal.js'
import { readSeed, checkSeedEvent, planSeedEvent, SEED_NOT_ARRAY, type SeedPlan } from './seed-read.js'

/** The live surface of a session: one object for the session's lifetime. */
export interface SessionSurface {
  /** Frozen snapshot of the node order (seqs), cached until the surface changes. */
  readonly nodes: readonly number[]
  /** O(1) membership. */
  has(seq: number): boolean
  /** How many replaces the surface has seen. */
  readonly replaceGeneration: number
}

export class Session {
  readonly id: SessionId
  /** Detached deep-frozen header. */
  readonly header: SessionHeader
  /** The first seq appended after the seed (the seed length, or 0 without a seed). */
  readonly firstLiveSeq: number
  readonly surface: SessionSurface

  private readonly log: AnySessionEvent[] = []
  private eventsCache: readonly AnySessionEvent[] | undefined
  private state = new SurfaceState()
  private surfaceView: SurfaceView | undefined
  private nodesCache: readonly number[] | undefined
  private readonly projection = new MessageProjection()
  private readonly facts = new RequestFacts()
  private readonly anchors = new DigestAnchors()
  /** The anchors' replace generation when `deriveMessages()` last built a new array. */
  private derivedGeneration = 0;

  /** @internal */
  [PUBLISHER]: SessionPublisher | undefined = undefined;
  /** @internal */
  [PUBLISHING] = false

  private constructor(id: string, header: SessionHeader, firstLiveSeq: number) {
    this.id = id as SessionId
    this.header = header
    this.firstLiveSeq = firstLiveSeq
    const self = this
    this.surface = Object.freeze({
      get nodes() {
        return (self.nodesCache ??= Object.freeze([...self.state.order]))
      },
      has: (seq: number) => self.state.members.has(seq),
      get replaceGeneration() {
        return self.state.replaceGeneration
      },
    })
  }

  /**
   * Builds a detached session in snapshot mode: seed events and the header are copied through
   * `snapshotJsonValue`. The seed is checked before the header (default `{version: 0, id, createdAt: now}`).
   * A given seed (even `[]`) that does not end in `session/end-seed` gets the marker appended.
   */
  static create(id: string, seed?: readonly unknown[], header?: unknown): Session {
    const events = seed === undefined ? undefined : readSeed(seed)
    const checked = validateSessionHeader(
      header === undefined ? { version: 0, id, createdAt: Date.now() } : header,
      id,
      'snapshot',
    )
    return Session.build(id, checked, events)
  }

  /**
   * Builds a detached session in restore mode: persistence transfers ownership of fresh values, which are validated
   * and frozen in place without copying or JSON checks. The header is checked first.
   */
  static fromRestore(id: string, seed: readonly unknown[], header: unknown): Session {
    const checked = validateSessionHeader(header, id, 'restore')
    if (!Array.isArray(seed)) throw new TypeError(SEED_NOT_ARRAY)
    // One pass: each event is checked, planned against the session being built, frozen in place and committed, as
    // `append` does. Nothing per event outlives its iteration but what the session keeps (README, "Restore mode and freezing").
    // A failure throws the half-built session away.
    const session = new Session(id, checked, seed.length)
    const view = session.view()
    const length = seed.length
    for (let index = 0; index < length; index++) {
      const event = checkSeedEvent(seed[index], index)
      const plan = planSeedEvent(view, event, index)
      session.commit(freezeInPlace(event), plan)
    }
    session.endSeed()
    return session
  }

  /**
   * Snapshot mode's events are frozen already (`snapshotForLog` freezes its copies as it builds them); restore mode's
   * fresh values are frozen in place by `fromRestore`. Neither records anything in the process-wide `deepFreeze`
   * registry (see the package README, "Restore mode and freezing").
   */
  private static build(id: string, header: SessionHeader, seed: SeedPlan | undefined): Session {
    const session = new Session(id, header, seed?.events.length ?? 0)
    if (seed === undefined) return session
    // The seed's surface was planned and applied while it was checked; adopt that state instead of re-applying.
    session.state = seed.surface
    seed.events.forEach((event, index) => session.commit(event, seed.plans[index]!, false))
    session.endSeed()
    return session
  }

  /** A seed that does not end in `session/end-seed` gets the marker appended. */
  private endSeed(): void {
    if (this.log.at(-1)?.type !== 'session/end-seed') this.append('session/end-seed', {})
  }

  /** The next seq (= `events.length`). */
  get seq(): number {
    return this.log.length
  }

  /** The log as a frozen array, cached until the next append; older arrays never grow. */
  get events(): readonly SessionEvent[] {
    return (this.eventsCache ??= Object.freeze([...this.log])) as readonly SessionEvent[]
  }

  /**
   * Appends one event and returns the committed (deep-frozen) object. Validates lossless JSON, legacy vocabulary and
   * surface metadata; refuses re-entrance while an append is being published; plans the surface change; lets
   * store-side listeners veto; commits; then notifies observers, containing their failures. A rejected append
   * commits nothing.
   */
  append<K extends keyof SessionEventMap & string>(
    type: K,
    data: SessionEventMap[K],
    opts?: AppendOptions,
  ): SessionEvent<K>
  append(type: string, data: unknown, opts?: AppendOptions): SessionEventEnvelope
  append(type: string, data: unknown, opts?: AppendOptions): AnySessionEvent {
    if (typeof type !== 'string') throw new TypeError('session event type must be a string')
    // No credential the process holds is ever written (docs/security.md#the-log): redacted in the copy, before commit.
    const secrets = knownSecrets()
    const snap = snapshotForLog(data, JSON_LIMITS, secrets.size === 0 ? undefined : secrets.asTextFilter)
    if (!snap.ok) {
      if ('limit' in snap) throw new JsonLimitError(`session event "${type}" carries data that`, snap.limit)
      throw new Error(`session event "${type}" carries non-JSON-serializable data`, {
        cause: jsonViolationError(snap.violation),
      })
    }
    const legacy = legacyViolation(type, snap.value)
    if (legacy !== undefined) throw new Error(legacy)

    const surfaceOp = opts?.surfaceOp
    const sourceEventSeqs = opts?.sourceEventSeqs
    const meta: { surfaceOp?: unknown; sourceEventSeqs?: unknown } = {}
    for (const [key, value] of [
      ['surfaceOp', surfaceOp],
      ['sourceEventSeqs', sourceEventSeqs],
    ] as const) {
      if (value === undefined) continue
      const metaSnap = snapshotForLog(value, JSON_LIMITS)
      if (!metaSnap.ok) {
        if ('limit' in metaSnap) {
          const limit = { ...metaSnap.limit, path: metaSnap.limit.path.replace(/^\$/, key) }
          throw new JsonLimitError(`session event "${type}" carries surface metadata that`, limit)
        }
        throw new Error(`session event "${type}" carries non-JSON-serializable surface metadata`, {
          cause: jsonViolationError({ ...metaSnap.violation, path: metaSnap.violation.path.replace(/^\$/, key) }),
        })
      }
      meta[key] = metaSnap.value
    }

    if (this[PUBLISHING]) throw new Error('session append cannot reenter while another append is being published')

    // The snapshots are frozen already (README, "Restore mode and freezing"): only the envelope is left to freeze.
    const event = Object.freeze({
      type,
      seq: this.log.length,
      time: Date.now(),
      data: snap.value,
      ...meta,
    }) as AnySessionEvent
    const plan = planSurface(this.view(), event)

    const publisher = this[PUBLISHER]
    if (publisher === undefined) {
      this.commit(event, plan)
      return event
    }
    this[PUBLISHING] = true
    try {
      const prepared = publisher.prepare(event)
      this.commit(event, plan)
      publisher.notify(prepared, event)
    } finally {
      this[PUBLISHING] = false
      publisher.settled()
    }
    return event
  }

  /**
   * The model-visible history: non-null projections of the surface nodes, in node order, as a frozen array whose
   * messages are the log's own deep-frozen objects. Amortized O(new events); the same array while unchanged.
   */
  deriveMessages(): readonly Message[] {
    const before = this.projection.built
    const messages = this.projection.messages()
    if (messages !== before) this.derivedGeneration = this.anchors.generation
    return messages
  }

  /**
   * The message chain recorded by the log's last trustworthy `request/digest`, when it describes a prefix of
   * `messages` and `messages` is the array `deriveMessages()` last returned (Bridle addition, see the README,
   * "Continuing the digest chain"). A digester starting on a resumed or seeded session continues from it instead of
   * hashing the stored history again. `undefined` when there is no such digest, a surface replace happened since it,
   * or `messages` is any other array.
   */
  digestedPrefix(messages: readonly Message[]): DigestedPrefix | undefined {
    if (messages !== this.projection.built || this.derivedGeneration !== this.anchors.generation) return undefined
    const prefix = this.anchors.current()
    return prefix !== undefined && prefix.count <= messages.length ? prefix : undefined
  }

  /** Canonical header of the last `request/header`, folded incrementally; `undefined` before any record. */
  requestHeader(): EpochHeader | undefined {
    return this.facts.requestHeader()
  }

  /** Data of the last `request/context`, folded incrementally; `undefined` before any record. */
  requestContext(): RequestContext | undefined {
    return this.facts.requestContext()
  }

  /** The planner's live view of this session, one object for its lifetime (no allocation per append). */
  private view(): SurfaceView {
    if (this.surfaceView === undefined) {
      const self = this
      this.surfaceView = {
        get expectedSeq() {
          return self.log.length
        },
        get nodes() {
          return self.state.order
        },
        indexOf: (seq) => self.state.indexOf(seq),
        eventAt: (seq) => self.log[seq],
      }
    }
    return this.surfaceView
  }

  /** `applySurface` is false only for seed events whose plans the adopted seed surface already holds. */
  private commit(event: AnySessionEvent, plan: SurfacePlan, applySurface = true): void {
    this.log.push(event)
    this.eventsCache = undefined
    if (applySurface) this.state.apply(plan)
    if (plan.kind !== 'none') this.nodesCache = undefined
    this.projection.apply(plan, event)
    this.facts.observe(event)
    this.anchors.observe(event, plan, this.projection.count)
  }
}
