/**
 * The per-call `openai` SDK client. The SDK does one request attempt — URL joining, auth, the per-attempt timeout,
 * typed errors — and is shielded from the ambient environment (`OPENAI_*` variables, `OPENAI_LOG`). Retries are the
 * adapter's (`withRetries` of `@bridle/llm/adapter-kit`), and so is the bounded read of a failed answer's body.
 */
import { attributionHeaders } from '@bridle/llm'
import { capturingFetch, type FailedAnswerRecord, type SdkErrorClasses } from '@bridle/llm/adapter-kit'
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import type { OpenAICompatConfig } from './config.js'

/** Placeholder key for keyless servers; its `authorization` header is removed. */
const NO_KEY_PLACEHOLDER = 'bridle-no-key'

/** The SDK's error classes, for the kit's retry conditions and catch ladder. */
export const SDK_ERRORS: SdkErrorClasses = {
  APIError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
}

/**
 * Builds a fresh client for one call. `apiKey === null` means keyless. `record` receives the body of every non-2xx
 * answer, because the SDK keeps only `body.error` and loses legacy shapes.
 */
export function createClient(config: OpenAICompatConfig, apiKey: string | null, record: FailedAnswerRecord): OpenAI {
  const headers: Record<string, string | null> = { ...attributionHeaders(), ...config.headers }
  if (apiKey === null) headers.authorization = null
  return new OpenAI({
    apiKey: apiKey ?? NO_KEY_PLACEHOLDER,
    baseURL: config.baseURL,
    organization: null,
    project: null,
    logLevel: 'off',
    // the adapter runs the retries itself: the SDK's sleep can be neither capped nor cancelled
    maxRetries: 0,
    timeout: config.timeoutMs,
    fetch: capturingFetch(record),
    defaultHeaders: headers,
  })
}
