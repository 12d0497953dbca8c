/**
 * Reading a seed (docs/session-events.md#seeds): every slot checked once, in order, with the surface transition of
 * each, before a session is built from it.
 */
import { isRecord, JSON_LIMITS, JsonLimitError, jsonLimitViolation } from '@bridle/llm'
import type { AnySessionEvent } from '../events/events.js'
import { jsonViolationError, snapshotForLog, type JsonViolation } from '../json/json.js'
import {
  assertSeedRequestHeader,
  hasValidEventEnvelope,
  legacySeedViolation,
  messageShapeProblem,
} from '../events/shape.js'
import {
  planSurface,
  releaseSurfaceState,
  SurfaceManager,
  type SurfacePlan,
  type SurfaceState,
  type SurfaceView,
} from '../surface/surface.js'

/** Checked seed events with the surface plan of each. */
export interface SeedPlan {
  readonly events: readonly AnySessionEvent[]
  readonly plans: readonly SurfacePlan[]
  /** The surface after every seed event, built by the checks. */
  readonly surface: SurfaceState
}

export const SEED_NOT_ARRAY = 'session seed must be an array of events'

/**
 * Reads and checks every snapshot-mode seed slot once (docs/session-events.md#seeds), in order: JSON snapshot, then
 * the checks of {@link checkSeedEvent} and the surface transition. The seed is checked whole before the header, so
 * the plans are kept for the session built afterwards.
 */
export function readSeed(seed: readonly unknown[]): SeedPlan {
  if (!Array.isArray(seed)) throw new TypeError(SEED_NOT_ARRAY)
  const out: AnySessionEvent[] = []
  const plans: SurfacePlan[] = []
  const surface = new SurfaceManager()
  const length = seed.length
  for (let index = 0; index < length; index++) {
    // No limits on the envelope: the data's limit is checked just below, as `append` checks it.
    const snap = snapshotForLog(seed[index])
    if (!snap.ok) {
      const { violation } = snap as { violation: JsonViolation }
      throw new Error(`seed event at index ${index} is not losslessly JSON-serializable`, {
        cause: jsonViolationError(violation),
      })
    }
    const value = snap.value
    // The limit `append` enforces holds for seeded events too (a fork's seed, a caller's own events): a seed that
    // could never be written would otherwise be accepted here and fail in every writer.
    const data = isRecord(value) ? value.data : undefined
    const limit = jsonLimitViolation(data, JSON_LIMITS)
    if (limit !== undefined) {
      const path = limit.path.replace(/^\$/, '$.data')
      throw new JsonLimitError(`seed event at index ${index} carries data that`, { ...limit, path })
    }
    const event = checkSeedEvent(value, index)
    plans.push(planSeedEvent(surface, event, index))
    out.push(event)
  }
  return { events: out, plans, surface: releaseSurfaceState(surface) }
}

/**
 * The checks of one seed slot (docs/session-events.md#seeds), in order: legacy type, envelope, `request/header` and
 * message shape, legacy reason, contiguity. Allocates nothing for a valid event.
 */
export function checkSeedEvent(value: unknown, index: number): AnySessionEvent {
  if (isRecord(value) && value.type === 'request/header-delta') {
    throw new Error(legacySeedViolation(index, 'request/header-delta'))
  }
  if (!hasValidEventEnvelope(value)) throw new Error(`seed event at index ${index} has an invalid event envelope`)
  const type = value.type
  if (type === 'request/header') assertSeedRequestHeader(value.data, index)
  else {
    const problem = messageShapeProblem(value)
    if (problem !== undefined) throw new Error(`seed ${type} at index ${index} ${problem}`)
  }
  if (type === 'request/header' && isRecord(value.data) && value.data.reason === 'fallback') {
    throw new Error(legacySeedViolation(index, 'fallback-reason'))
  }
  if (value.seq !== index) {
    throw new Error(
      `seed event at index ${index} has seq ${value.seq} (expected ${index}); seed must be contiguous from 0`,
    )
  }
  return value
}

/** The surface transition of a checked seed event: a `SurfaceManager` push, or a plan against a session's view. */
export function planSeedEvent(
  surface: SurfaceManager | SurfaceView,
  event: AnySessionEvent,
  index: number,
): SurfacePlan {
  try {
    return surface instanceof SurfaceManager ? surface.push(event) : planSurface(surface, event)
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'invalid surface metadata'
    throw new Error(`invalid seed event at index ${index}: ${detail}`, { cause: error })
  }
}
