/**
 * One event's data → the payload the translator reads, and the error it carries, if any. Error events and error
 * payloads end the call at once; an `error` object beside `choices` (OpenRouter's mid-stream form) ends it right after
 * the content that payload still carries, with the provider's own message.
 */
import { LlmError, clipRedacted } from '@bridle/llm'
import type { OpenAICompatConfig } from './config.js'
import { detailsOfObject, streamErrorEvent } from './http-errors.js'
import { asRecord } from './json-object.js'

const MALFORMED_PREVIEW_CHARS = 120

/** A parsed payload, and the error to throw once its content is out. */
export interface ParsedPayload {
  payload: Record<string, unknown>
  error?: LlmError
}

/** Parses one event; throws the classified error of an error event, an error payload or unparseable data. */
export function parsePayload(event: string | undefined, data: string, config: OpenAICompatConfig): ParsedPayload {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    if (event === 'error') throw streamErrorEvent({ message: data.trim() }, config.displayName)
    throw malformed(data, config)
  }
  if (event === 'error') throw streamErrorEvent(detailsOfObject(json), config.displayName)
  const payload = asRecord(json)
  if (payload === undefined) throw malformed(data, config)
  if (!('error' in payload)) return { payload }
  if (!('choices' in payload)) throw streamErrorEvent(detailsOfObject(payload), config.displayName)
  const carried = payload.error
  const real = (typeof carried === 'string' && carried.trim() !== '') || asRecord(carried) !== undefined
  return real ? { payload, error: streamErrorEvent(detailsOfObject(payload), config.displayName) } : { payload }
}

/** Unparseable data, previewed: redacted first, then cut. */
function malformed(data: string, config: OpenAICompatConfig): LlmError {
  return new LlmError(
    `malformed event from ${config.baseURL}: ${clipRedacted(data, MALFORMED_PREVIEW_CHARS)}`,
    'MALFORMED_RESPONSE',
  )
}
