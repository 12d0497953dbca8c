export { snapshotJsonValue, isJsonValue, jsonValueViolation, type JsonViolation } from './json/json.js'
export {
  type AgentCancelCause,
  type TurnEndReasonMap,
  type TurnEndReason,
  type EpochHeader,
  type EpochHeaderAdapterDefaults,
  type RequestContext,
  type RequestHeaderReason,
  type TodoItem,
  type RequestDigestRecord,
  type RequestCacheRecord,
  type CompactionRequestRecord,
  type SessionEventMap,
  type SessionEventType,
  type ReplaceSurfaceOp,
  type SurfaceOp,
  type SessionEventEnvelope,
  type SessionEvent,
  type AnySessionEvent,
  type AppendOptions,
  type SurfaceEventType,
  KNOWN_SESSION_EVENT_TYPES,
  isSurfaceEligibleType,
  isSurfaceEvent,
  isAppendSurfaceEvent,
  isReplacementSurfaceEvent,
} from './events/events.js'
export { SESSION_FORMAT_VERSION, type SessionHeader } from './events/header.js'
export {
  assertMessageEventShape,
  adoptSessionEvent,
  legacyStoredViolation,
  snapshotSessionEvent,
} from './events/shape.js'
export {
  type SurfaceReplacement,
  type FoldedSurface,
  SurfaceManager,
  foldSurface,
} from './surface/surface.js'
export { deriveEventMessage } from './surface/derive.js'
export { canonicalHeader, headerEquals, foldRequestHeader } from './surface/request-header.js'
export { Session, type SessionSurface } from './log/session.js'
export type { DigestedPrefix } from './provability/digest-anchor.js'
export {
  reconstructRequest,
  surfaceMessages,
  requestSteps,
  type ReconstructedRequest,
  type ReconstructedModelRequest,
  type RequestStep,
} from './surface/reconstruct.js'
export { interruptedTurnClosers, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './surface/repair.js'
export { SessionForkError, type SessionForkErrorCode } from './surface/fork.js'
export {
  type SessionPersistence,
  type SessionInspection,
  type SessionPreparation,
  type SessionLocation,
  type SessionSnapshotInfo,
  type SessionRawLog,
  type SessionFollowOptions,
  type SessionRecoveryReport,
  SessionPersistenceCorruptionError,
  SessionFormatUnsupportedError,
  createSessionPreparation,
} from './log/persistence.js'
export {
  type SessionSummary,
  type SummaryFacts,
  FIRST_PROMPT_CHARS,
  summaryFacts,
  summarizeEvents,
} from './log/summary.js'
export { SessionStore, type SessionMeta, type PrepareSessionOptions } from './log/store.js'
export { canonicalJson, sha256Hex } from './json/canonical.js'
export { writeJsonIteratively, type JsonWalkOptions } from './json/json-walk.js'
export {
  type DigestableRequest,
  type RequestDigestParts,
  EMPTY_CHAIN,
  configDigest,
  systemDigest,
  toolsDigest,
  cacheDigest,
  messageDigest,
  messageChain,
  requestDigestParts,
  RequestDigester,
} from './provability/digest.js'
export {
  verifyDigests,
  undigestedSteps,
  type DigestPart,
  type DigestVerification,
  type UndigestedStep,
} from './provability/verify.js'
export {
  cachePrefixReport,
  type CachePrefixRow,
  type CompactionBreak,
  type MessageBreakCause,
  type CachePredictionRow,
  type CacheMissCause,
} from './provability/cache-report.js'
export {
  predictCacheRead,
  describeBreakpoint,
  describeCacheMiss,
  CACHE_LOOKBACK_BLOCKS,
} from './provability/cache-prediction.js'
export {
  replayRequests,
  type ReplayedRequest,
  type DigestedRequest,
  type SettledRequest,
} from './provability/replay.js'
export { RequestReplay } from './provability/request-replay.js'
export {
  modelViewDigests,
  modelViewMessage,
  type ModelViewDigests,
  type ModelViewMessage,
} from './provability/model-view.js'
export {
  sectionManifest,
  readSectionManifest,
  sectionChanges,
  sectionAt,
  type SystemSectionRecord,
  type SystemSectionSpan,
  type SectionChange,
} from './events/section-manifest.js'
