/**
 * Structural checks for events arriving from outside `append`: seeds, persistence loads and adopted events
 * (docs/session-events.md#seeds). `append` itself does not validate message shapes.
 */
import { deepFreeze, isRecord } from '@bridle/llm'
import type { AnySessionEvent } from './events.js'

/** Whether `key` is one of the seven envelope fields (a `switch`: a reload asks this for every key of every event). */
function isEnvelopeKey(key: string): boolean {
  switch (key) {
    case 'type':
    case 'seq':
    case 'time':
    case 'data':
    case 'surfaceOp':
    case 'sourceEventSeqs':
    case 'ignorable':
      return true
    default:
      return false
  }
}

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== ''

const hasOwn = Object.prototype.hasOwnProperty

/**
 * True when `value` has a valid seed/load envelope: own enumerable keys within the seven fields, a string `type`, a
 * non-negative safe-integer `seq`, a safe-integer `time`, `data` present and `ignorable` absent or `true`.
 */
export function hasValidEventEnvelope(value: unknown): value is AnySessionEvent {
  if (!isRecord(value)) return false
  // Own enumerable string keys: all a JSON value can have, and all a snapshot copy or a parsed log has (README,
  // "Restore mode and freezing"). `for…in` reads the engine's enum cache instead of building a key array per event.
  for (const key in value) if (hasOwn.call(value, key) && !isEnvelopeKey(key)) return false
  if (typeof value.type !== 'string') return false
  const seq = value.seq
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0 || Object.is(seq, -0)) return false
  if (typeof value.time !== 'number' || !Number.isSafeInteger(value.time)) return false
  if (!Object.hasOwn(value, 'data')) return false
  return value.ignorable === undefined || value.ignorable === true
}

/**
 * A shape of an older log format (docs/session-events.md#legacy-vocabulary): the type `request/header-delta`, a
 * `request/header` with reason `fallback`, and, in stored logs only, the type `mode/set`.
 */
export type LegacyShape = 'request/header-delta' | 'mode/set' | 'fallback-reason'

/** The legacy shape of an event, or `undefined`: the one check behind every refusal of the older vocabulary. */
function legacyShapeOf(type: unknown, data: unknown): LegacyShape | undefined {
  if (type === 'request/header-delta' || type === 'mode/set') return type
  if (type === 'request/header' && isRecord(data) && data.reason === 'fallback') return 'fallback-reason'
  return undefined
}

/** How errors name a legacy shape; a whole legacy type is followed by `noun` (`format`, `event`). */
function legacyPhrase(shape: LegacyShape, noun: 'format' | 'event'): string {
  return shape === 'fallback-reason' ? 'request/header reason "fallback"' : `${shape} ${noun}`
}

/**
 * The legacy-vocabulary message for an appended event, or `undefined`, phrased as `session event "<type>" uses …`.
 * An append of `mode/set` is a plugin's own type today; only stored logs are refused for it.
 */
export function legacyViolation(type: string, data: unknown): string | undefined {
  const shape = legacyShapeOf(type, data)
  if (shape === undefined || shape === 'mode/set') return undefined
  return `session event "${type}" uses unsupported legacy ${legacyPhrase(shape, 'format')}`
}

/** The legacy-vocabulary message for seed event `index` of `shape`, phrased `seed event at index <i> uses …`. */
export function legacySeedViolation(index: number, shape: LegacyShape): string {
  return `seed event at index ${index} uses unsupported legacy ${legacyPhrase(shape, 'format')}`
}

/**
 * The legacy-vocabulary message for an event of a stored log, or `undefined`, phrased
 * `session "<id>" contains unsupported legacy … at seq <n>`: what a persistence backend refuses on load.
 */
export function legacyStoredViolation(
  sessionId: string,
  event: { readonly type: string; readonly seq: number; readonly data: unknown },
): string | undefined {
  const shape = legacyShapeOf(event.type, event.data)
  if (shape === undefined) return undefined
  return `session "${sessionId}" contains unsupported legacy ${legacyPhrase(shape, 'event')} at seq ${event.seq}`
}

/**
 * Validates the message carried by a surface-eligible event. `subject` is
 * `seed <type> at index <i>` or `session event at seq <n>`. Events of other types pass unchecked.
 */
export function assertMessageEventShape(
  event: { readonly type: string; readonly data: unknown },
  subject: string,
): void {
  const problem = messageShapeProblem(event)
  if (problem !== undefined) throw new Error(`${subject} ${problem}`)
}

/**
 * What is wrong with the message of a surface-eligible event (the text after the subject), or `undefined`. Builds no
 * string for a valid event: a reload checks every stored event with it.
 */
export function messageShapeProblem(event: { readonly type: string; readonly data: unknown }): string | undefined {
  const { type } = event
  if (type !== 'user/message' && type !== 'assistant/message' && type !== 'tool/result') return undefined
  const data = event.data
  const message = type === 'user/message' ? data : isRecord(data) ? data.message : undefined
  if (!isRecord(message) || !isNonEmptyString(message.id)) return 'lacks an identified message'
  const role = type === 'assistant/message' ? 'assistant' : 'user'
  if (message.role !== role) return `message must have role "${role}"`
  const source = message.source
  if (!isRecord(source) || !isNonEmptyString(source.kind)) return 'message has invalid source'
  if (!Array.isArray(message.content)) return 'message has invalid content'
  if (type === 'assistant/message') {
    if (source.kind !== 'model' || !isNonEmptyString(source.provider) || !isNonEmptyString(source.model)) {
      return 'message must have model source'
    }
  } else if (type === 'tool/result') {
    if (source.kind !== 'tool' || !isNonEmptyString(source.callId)) return 'message must have tool source'
    const blocks = message.content as unknown[]
    const results = blocks.filter((block) => isRecord(block) && block.type === 'tool-result')
    const only = results[0]
    if (blocks.length !== 1 || results.length !== 1 || !isRecord(only) || !Array.isArray(only.content)) {
      return 'message must contain one tool-result block'
    }
    if (only.toolCallId !== source.callId) return 'message has mismatched tool call ids'
  }
  return undefined
}

/** The three extra checks of a seeded `request/header`; `index` names the seed slot. */
export function assertSeedRequestHeader(data: unknown, index: number): void {
  const header = isRecord(data) ? data.header : undefined
  const config = isRecord(header) ? header.config : undefined
  if (!isRecord(header) || !isRecord(config) || !isNonEmptyString(config.provider) || !isNonEmptyString(config.model)) {
    throw new Error(`seed request/header at index ${index} lacks provider/model`)
  }
  if (config.reasoningEffort !== undefined && !isNonEmptyString(config.reasoningEffort)) {
    throw new Error(`seed request/header at index ${index} has an invalid reasoningEffort`)
  }
  const defaults = header.adapterDefaults
  if (defaults !== undefined) {
    const valid =
      isRecord(defaults) &&
      Object.keys(defaults).every(
        (key) =>
          (key === 'reasoningEffort' || key === 'maxTokens') && defaults[key] === true && config[key] !== undefined,
      ) &&
      Reflect.ownKeys(defaults).every((key) => typeof key === 'string')
    if (!valid) throw new Error(`seed request/header at index ${index} has invalid adapterDefaults`)
  }
}

/**
 * Validates the message shape of a single event and deep-freezes it in place, returning the same object.
 * For events handed over by a trusted producer (persistence) that already owns a fresh value.
 */
export function adoptSessionEvent<E extends { readonly type: string; readonly seq: number; readonly data: unknown }>(
  event: E,
): E {
  assertMessageEventShape(event, `session event at seq ${event.seq}`)
  return deepFreeze(event)
}

/** `adoptSessionEvent(structuredClone(event))`: validates and returns a detached frozen copy. */
export function snapshotSessionEvent<E extends { readonly type: string; readonly seq: number; readonly data: unknown }>(
  event: E,
): E {
  return adoptSessionEvent(structuredClone(event))
}
