import {
  deepFreeze,
  describeJsonLimitViolation,
  jsonLimitViolation,
  MESSAGE_JSON_LIMITS,
  type ContentBlock,
  type JsonLimits,
  type JsonValue,
  type UserMessage,
} from '@bridle/llm'
import { snapshotJsonValue } from '@bridle/session'
import { harnessInfo, thrownMessage, TOOL_ABORTED, TOOL_ABORTED_BEFORE_DISPATCH } from './errors.js'
import type { ToolExecutionResult } from './types.js'

/** A result before contexts and conclusion are attached (what the pipeline carries between stages). */
export interface Outcome {
  content: ContentBlock[]
  isError: boolean
  error?: { message: string; info?: { name: string; code: string } }
  meta?: JsonValue
}

/** Message of the error result for a body whose result content or `meta` is not lossless JSON. */
const NON_JSON_RESULT = 'tool result must be losslessly JSON-serializable'

/** An error outcome with the canonical text `Error: <message>`. */
export function errorOutcome(message: string, info?: { name: string; code: string }): Outcome {
  const outcome: Outcome = { content: [{ type: 'text', text: `Error: ${message}` }], isError: true, error: { message } }
  if (info !== undefined) outcome.error!.info = info
  return outcome
}

/** The error outcome for any thrown value: its message, plus `{name, code}` when it is a `HarnessError`. */
export function thrownOutcome(e: unknown): Outcome {
  return errorOutcome(thrownMessage(e), harnessInfo(e))
}

/** The synthetic result for a call that was cancelled before its body started. */
export function abortedBeforeDispatchOutcome(): Outcome {
  return errorOutcome('tool call aborted before dispatch', { name: 'AbortError', code: TOOL_ABORTED_BEFORE_DISPATCH })
}

/** The override for a call whose body succeeded but whose turn was cancelled meanwhile. */
export function abortedOutcome(): Outcome {
  return errorOutcome('tool call aborted', { name: 'AbortError', code: TOOL_ABORTED })
}

function isContentBlockArray(value: unknown): value is ContentBlock[] {
  return (
    Array.isArray(value) &&
    value.every((b) => typeof b === 'object' && b !== null && typeof (b as { type?: unknown }).type === 'string')
  )
}

/**
 * Snapshots a value as lossless JSON; `undefined` when it is not, including when reading it throws (a hostile
 * getter), so a tool's or listener's odd value becomes the documented error result instead of escaping the pipeline.
 */
export function snapshotJson(value: unknown): JsonValue | undefined {
  try {
    return snapshotJsonValue(value)
  } catch {
    return undefined
  }
}

/** Snapshots content blocks as lossless JSON; `undefined` when they are not. */
export function snapshotContent(content: readonly ContentBlock[]): ContentBlock[] | undefined {
  return snapshotJson(content) as ContentBlock[] | undefined
}

/**
 * Turns what a body (or a `tools/execute` wrapper) returned into an outcome: a string becomes one text block, a
 * block array is used as-is, and a plain object with an own `content` array gives that content and `meta`. Anything
 * else is `tool "<name>" returned an unsupported value`; content or meta that is not lossless JSON is an error too.
 */
export function normalizeReturn(toolName: string, value: unknown): Outcome {
  let content: ContentBlock[]
  let meta: unknown
  let hasMeta = false
  if (typeof value === 'string') {
    content = [{ type: 'text', text: value }]
  } else if (isContentBlockArray(value)) {
    content = value
  } else if (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    [Object.prototype, null].includes(Object.getPrototypeOf(value)) &&
    Object.hasOwn(value, 'content') &&
    isContentBlockArray((value as { content: unknown }).content)
  ) {
    content = (value as { content: ContentBlock[] }).content
    hasMeta = Object.hasOwn(value, 'meta') && (value as { meta?: unknown }).meta !== undefined
    meta = (value as { meta?: unknown }).meta
  } else {
    return errorOutcome(`tool "${toolName}" returned an unsupported value`)
  }
  const contentCopy = snapshotContent(content)
  const metaCopy = hasMeta ? snapshotJson(meta) : undefined
  if (contentCopy === undefined || (hasMeta && metaCopy === undefined)) return errorOutcome(NON_JSON_RESULT)
  const outcome: Outcome = { content: contentCopy, isError: false }
  if (hasMeta) outcome.meta = metaCopy as JsonValue
  return outcome
}

/**
 * What a result may take to be recordable. Its content becomes a tool-result message, which `createToolResultMessage`
 * checks against `MESSAGE_JSON_LIMITS` of `@bridle/llm`, and its `tool/result` event records that message next to
 * `meta`. The check runs on `{message, meta}` with the message built as it will be (a UUID-long id), one level above
 * the message: so whatever passes here also passes the message check, and both fit one event.
 */
const RESULT_LIMITS: JsonLimits = { maxDepth: MESSAGE_JSON_LIMITS.maxDepth + 1, maxBytes: MESSAGE_JSON_LIMITS.maxBytes }
const UUID_LONG = '00000000-0000-0000-0000-000000000000'

/**
 * The outcome itself when its content and `meta` are within the session's JSON limit; otherwise the error outcome
 * `tool "<name>" returned a result that is <n> bytes as JSON, over the 31.9 MiB limit (…; passed at content[0].text);
 * it was dropped` (code `JSON_TOO_LARGE` or `JSON_TOO_DEEP`). Without this the loop could not record the result: its
 * append would fail and end the turn with an unknown error; now the model reads why and the turn goes on.
 */
export function recordableOutcome(toolName: string, callId: string, outcome: Outcome): Outcome {
  const block: Record<string, unknown> = { type: 'tool-result', toolCallId: callId, content: outcome.content }
  if (outcome.isError) block.isError = true
  const message = { id: UUID_LONG, role: 'user', content: [block], source: { kind: 'tool', callId } }
  const shape: Record<string, unknown> = { message }
  if (outcome.meta !== undefined) shape.meta = outcome.meta
  const violation = jsonLimitViolation(shape, RESULT_LIMITS)
  if (violation === undefined) return outcome
  const path = violation.path.replace(/^\$\.message\.content\[0\]\.content/, 'content').replace(/^\$\./, '')
  const limit =
    violation.kind === 'depth' ? { ...violation, path, limit: MESSAGE_JSON_LIMITS.maxDepth } : { ...violation, path }
  const code = violation.kind === 'depth' ? 'JSON_TOO_DEEP' : 'JSON_TOO_LARGE'
  return errorOutcome(
    `tool "${toolName}" returned a result that ${describeJsonLimitViolation(limit)}; it was dropped`,
    {
      name: 'JsonLimitError',
      code,
    },
  )
}

/**
 * Builds the final, deep-frozen result: `error` only on errors, contexts only when any, `concludesTurn` only on
 * success.
 */
export function finalResult(
  outcome: Outcome,
  contexts: readonly UserMessage[],
  concludes: boolean,
): ToolExecutionResult {
  const result: {
    content: ContentBlock[]
    isError: boolean
    error?: Outcome['error']
    meta?: JsonValue
    additionalContexts?: UserMessage[]
    concludesTurn?: true
  } = { content: outcome.content, isError: outcome.isError }
  if (outcome.isError && outcome.error !== undefined) result.error = outcome.error
  if (outcome.meta !== undefined) result.meta = outcome.meta
  if (contexts.length > 0) result.additionalContexts = [...contexts]
  if (concludes && !outcome.isError) result.concludesTurn = true
  return deepFreeze(result)
}
