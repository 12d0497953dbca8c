export { snapshotJsonValue, isJsonValue, jsonValueViolation, type JsonViolation } from './json.js'
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
} from './events.js'
export { SESSION_FORMAT_VERSION, type SessionHeader } from './header.js'
export { assertMessageEventShape, adoptSessionEvent, legacyStoredViolation, snapshotSessionEvent } from './shape.js'
export {
  type SurfaceReplacement,
  type FoldedSurface,
  SurfaceManager,
  foldSurface,
} from './surface.js'
export { deriveEventMessage } from './derive.js'
export { canonicalHeader, headerEquals, foldRequestHeader } from './request-header.js'
export { Session, type SessionSurface } from './session.js'
export type { DigestedPrefix } from './digest-anchor.js'
export {
  reconstructRequest,
  surfaceMessages,
  requestSteps,
  type ReconstructedRequest,
  type ReconstructedModelRequest,
  type RequestStep,
} from './reconstruct.js'
export { interruptedTurnClosers, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './repair.js'
export { SessionForkError, type SessionForkErrorCode } from './fork.js'
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
} from './persistence.js'
export { SessionStore, type SessionMeta, type PrepareSessionOptions } from './store.js'
export { canonicalJson, sha256Hex } from './canonical.js'
export { writeJsonIteratively, type JsonWalkOptions } from './json-walk.js'
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
} from './digest.js'
export {
  verifyDigests,
  undigestedSteps,
  type DigestPart,
  type DigestVerification,
  type UndigestedStep,
} from './verify.js'
export {
  cachePrefixReport,
  type CachePrefixRow,
  type CompactionBreak,
  type MessageBreakCause,
  type CachePredictionRow,
  type CacheMissCause,
} from './cache-report.js'
export {
  predictCacheRead,
  describeBreakpoint,
  describeCacheMiss,
  CACHE_LOOKBACK_BLOCKS,
} from './cache-prediction.js'
export { replayRequests, type ReplayedRequest } from './replay.js'
export {
  sectionManifest,
  readSectionManifest,
  sectionChanges,
  sectionAt,
  type SystemSectionRecord,
  type SystemSectionSpan,
  type SectionChange,
} from './section-manifest.js'
