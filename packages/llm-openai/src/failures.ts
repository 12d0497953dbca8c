/**
 * The catch ladder (spec §7): whatever went wrong during one call becomes exactly one `LlmError`,
 * first matching rung wins. Messages name the base URL, never the key or header values.
 */
import { LlmError } from '@bridle/llm'
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from 'openai'
import type { CallRecord } from './client.js'
import type { OpenAICompatConfig } from './config.js'
import { IdleTimeoutError } from './event-stream.js'
import { httpError } from './http-errors.js'

export interface LadderContext {
  config: OpenAICompatConfig
  /** The caller's signal (not the internal one). */
  signal?: AbortSignal
  record: CallRecord
}

/** Maps any thrown value of a call to the `LlmError` the adapter throws. */
export function toLlmError(error: unknown, context: LadderContext): LlmError {
  const { config, signal, record } = context
  if (error instanceof IdleTimeoutError) return error
  if (signal?.aborted === true) return new LlmError('request aborted', 'ABORTED')
  if (error instanceof LlmError) return error
  if (error instanceof APIUserAbortError) return new LlmError('request aborted', 'ABORTED')
  if (error instanceof APIConnectionTimeoutError) {
    return new LlmError(`request to ${config.baseURL} timed out after ${config.timeoutMs}ms`, 'TIMEOUT')
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const captured = record.failure
    const text = captured?.status === error.status ? captured.text : ''
    const headers = captured?.headers ?? (error.headers as Headers | undefined)
    return httpError(error.status, headers, text, config.displayName)
  }
  if (error instanceof APIConnectionError) {
    return new LlmError(`request to ${config.baseURL} failed`, 'TRANSPORT', { cause: error })
  }
  return new LlmError(`event stream from ${config.baseURL} failed`, 'TRANSPORT', { cause: error })
}
