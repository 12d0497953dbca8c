/**
 * The session event vocabulary (docs/session-events.md): the envelope, the merge-extensible payload map, the surface
 * markers, and the guards that tell surface-eligible events from log-only ones.
 */
import type {
  AssistantMessage,
  CachePlan,
  CallId,
  JsonValue,
  LlmCallConfig,
  LlmFailure,
  StreamChunk,
  TokenUsage,
  ToolResultMessage,
  ToolSchema,
  UserMessage,
} from '@bridle/llm'
import type { SystemSectionRecord } from './section-manifest.js'

/** Why an agent turn was cancelled; `Agent.cancel` takes it and `turn/end {kind:'aborted'}` records it. */
export type AgentCancelCause =
  | { readonly kind: 'user' }
  | { readonly kind: 'parent' }
  | { readonly kind: 'disposed' }
  | { readonly kind: 'hook'; readonly reason: string }

/** The ways a turn can end, keyed by `kind`. Extend by declaration merging. */
export interface TurnEndReasonMap {
  completed: { readonly kind: 'completed' }
  blocked: { readonly kind: 'blocked' }
  'max-tokens': { readonly kind: 'max-tokens' }
  /** The turn opened its step cap (`AgentOptions.maxSteps`) and was owed another step; `steps` is how many it opened. */
  'max-steps': { readonly kind: 'max-steps'; readonly steps: number }
  /** Written only by crash repair (`interruptedTurnClosers`). */
  interrupted: { readonly kind: 'interrupted' }
  error: { readonly kind: 'error'; readonly error: LlmFailure }
  aborted: { readonly kind: 'aborted'; readonly reason: AgentCancelCause }
}

export type TurnEndReason = TurnEndReasonMap[keyof TurnEndReasonMap]

/** Flags marking config fields that the adapter, not the caller, supplied. */
export interface EpochHeaderAdapterDefaults {
  readonly reasoningEffort?: true
  readonly maxTokens?: true
}

/**
 * What was sent: the request header recorded by `request/header`
 * (docs/surface-and-reconstruction.md#request-header-and-context).
 */
export interface EpochHeader {
  readonly config: LlmCallConfig
  readonly adapterDefaults?: EpochHeaderAdapterDefaults
  readonly system?: string
  readonly tools?: readonly ToolSchema[]
}

/** Route capacity metadata recorded by `request/context`; plays no part in header equality. */
export interface RequestContext {
  readonly provider: string
  readonly model: string
  readonly contextWindow?: number
}

export type RequestHeaderReason = 'initial' | 'resume' | 'change'

/** One todo entry of `todo/write` (the whole list is written each time; last wins). */
export interface TodoItem {
  readonly content: string
  readonly status: 'pending' | 'in_progress' | 'completed'
}

/** The payload of `request/digest` (docs/provability.md#request-digests). */
export interface RequestDigestRecord {
  readonly turn: number
  readonly step: number
  readonly attempt: number
  readonly algorithm: 'sha256'
  readonly request: string
  readonly config: string
  readonly system: string
  readonly tools: string
  readonly messages: { readonly count: number; readonly chain: string }
  /** `'compaction'` on the digest of a summary request (see {@link CompactionRequestRecord}); absent otherwise. */
  readonly purpose?: 'compaction'
  /** Digest of the request's cache placement (`request/cache`); absent when the request carried none. */
  readonly cache?: string
}

/**
 * The payload of `request/cache`: where the route's adapter placed prompt-cache breakpoints for a step's request and
 * why (docs/caching.md). Log-only; appended before the step's `request/digest`, which covers the plan.
 */
export interface RequestCacheRecord {
  readonly turn: number
  readonly step: number
  readonly plan: CachePlan
}

/**
 * The payload of `request/compaction`: the summary request a compaction step made. That request is the last
 * `request/header`'s system and tools sent with `config`, carrying the first `count` messages of the surface as it
 * stood when this record was appended, followed by `instruction`. Its `request/digest` (`purpose: 'compaction'`) and
 * its `assistant/chunk`s follow in the same step; when the summary succeeded, one `user/message` checkpoint then
 * replaces those messages (a surface replace citing them). Log-only.
 */
export interface CompactionRequestRecord {
  readonly turn: number
  readonly step: number
  /** `manual` when `agent.compact()` asked for it; `threshold` when a policy decided before a step. */
  readonly reason: 'threshold' | 'manual'
  readonly count: number
  readonly config: LlmCallConfig
  readonly adapterDefaults?: EpochHeaderAdapterDefaults
  readonly instruction: UserMessage
}

/**
 * Payload types by event type. Merge-extensible: plugins add their own types by module augmentation
 * (`@bridle/inbox` adds `agent/inbox/spliced` this way).
 */
export interface SessionEventMap {
  'turn/start': { readonly turn: number }
  'turn/end': { readonly turn: number; readonly reason: TurnEndReason }
  'step/start': { readonly turn: number; readonly step: number }
  'step/end': { readonly turn: number; readonly step: number }
  'user/message': UserMessage
  'assistant/chunk': { readonly turn: number; readonly step: number; readonly chunk: StreamChunk }
  'assistant/message': {
    readonly turn: number
    readonly step: number
    readonly message: AssistantMessage
    readonly usage?: TokenUsage
  }
  'tool/call': {
    readonly turn: number
    readonly step: number
    readonly callId: CallId
    readonly name: string
    readonly arguments: string
  }
  'tool/result': {
    readonly turn: number
    readonly step: number
    readonly message: ToolResultMessage
    readonly error?: { readonly name: string; readonly code: string }
    readonly meta?: JsonValue
  }
  'todo/write': { readonly todos: readonly TodoItem[] }
  'request/header': {
    readonly header: EpochHeader
    readonly reason: RequestHeaderReason
    /** Which section produced which span of `header.system` (absent in logs written before manifests). */
    readonly sections?: readonly SystemSectionRecord[]
  }
  'request/context': RequestContext
  'request/digest': RequestDigestRecord
  'request/compaction': CompactionRequestRecord
  'request/cache': RequestCacheRecord
  'session/end-seed': Readonly<Record<string, never>>
}

export type SessionEventType = keyof SessionEventMap & string

/** A replace marker: swap the inclusive node range `start..end` (by seq, in current node order) for this event. */
export interface ReplaceSurfaceOp {
  readonly op: 'replace'
  readonly start: number
  readonly end: number
}

export type SurfaceOp = 'append' | ReplaceSurfaceOp

/** The envelope of every event. `seq` is the event's index in the log. */
export interface SessionEventEnvelope<T extends string = string, D = unknown> {
  readonly type: T
  readonly seq: number
  readonly time: number
  readonly data: D
  readonly surfaceOp?: SurfaceOp
  readonly sourceEventSeqs?: readonly number[]
  readonly ignorable?: true
}

/** A known session event, discriminated by `type`. */
export type SessionEvent<K extends keyof SessionEventMap = keyof SessionEventMap> = {
  [P in K]: SessionEventEnvelope<P & string, SessionEventMap[P]>
}[K]

/** Any event a log may hold, including plugin types unknown to this package. */
export type AnySessionEvent = SessionEvent | SessionEventEnvelope

/** Options of `session.append`; other keys are silently ignored. */
export interface AppendOptions {
  readonly surfaceOp?: SurfaceOp
  readonly sourceEventSeqs?: readonly number[]
}

/** The three types that can be surface nodes. */
export type SurfaceEventType = 'user/message' | 'assistant/message' | 'tool/result'

const SURFACE_TYPES: ReadonlySet<string> = new Set<SurfaceEventType>([
  'user/message',
  'assistant/message',
  'tool/result',
])

/** A `Set` whose mutators throw, so a shared constant cannot be changed by accident. */
function readonlySet(values: readonly string[]): ReadonlySet<string> {
  const set = new Set(values)
  const refuse = () => {
    throw new TypeError('KNOWN_SESSION_EVENT_TYPES is read-only')
  }
  Object.defineProperties(set, { add: { value: refuse }, delete: { value: refuse }, clear: { value: refuse } })
  return Object.freeze(set)
}

/** The 17 event types this harness knows. Only the persistence read path refuses types outside it. */
export const KNOWN_SESSION_EVENT_TYPES: ReadonlySet<string> = readonlySet([
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'user/message',
  'assistant/chunk',
  'assistant/message',
  'tool/call',
  'tool/result',
  'todo/write',
  'request/header',
  'request/context',
  'request/digest',
  'request/compaction',
  'request/cache',
  'session/end-seed',
  'agent/inbox/spliced',
])

/** True for `user/message`, `assistant/message` and `tool/result`. */
export function isSurfaceEligibleType(type: string): type is SurfaceEventType {
  return SURFACE_TYPES.has(type)
}

/** A surface-eligible event that carries a surface marker. */
export function isSurfaceEvent(event: AnySessionEvent): event is SessionEvent<SurfaceEventType> {
  return isSurfaceEligibleType(event.type) && event.surfaceOp !== undefined
}

/** A surface event appended at the end of the surface (`surfaceOp: 'append'`). */
export function isAppendSurfaceEvent(event: AnySessionEvent): event is SessionEvent<SurfaceEventType> {
  return isSurfaceEvent(event) && event.surfaceOp === 'append'
}

/** A surface event that replaced a range of the surface (`surfaceOp: {op:'replace', …}`). */
export function isReplacementSurfaceEvent(
  event: AnySessionEvent,
): event is SessionEvent<SurfaceEventType> & { readonly surfaceOp: ReplaceSurfaceOp } {
  return isSurfaceEvent(event) && typeof event.surfaceOp === 'object' && event.surfaceOp !== null
}
