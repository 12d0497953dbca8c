/**
 * The per-call `@anthropic-ai/sdk` client. The SDK does one request attempt — URL joining, the `x-api-key` and
 * `anthropic-version` headers, the per-attempt timeout, typed errors — and is shielded from the ambient
 * environment: the key is always passed (so `ANTHROPIC_AUTH_TOKEN` and credential profiles are never read), the
 * base URL too (`ANTHROPIC_BASE_URL` is ignored), logging is off (`ANTHROPIC_LOG`), and so are the SDK's own
 * OpenTelemetry spans and trace headers. Retries are the adapter's (`withRetries` of `@bridle/llm/adapter-kit`), and
 * so is the bounded read of a failed answer's body: the SDK reads an error body whole, and a proxy's error page has
 * no size limit.
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk'
import { attributionHeaders } from '@bridle/llm'
import { capturingFetch, type SdkErrorClasses } from '@bridle/llm/adapter-kit'
import type { AnthropicConfig } from './config.js'

/** The SDK's error classes, for the kit's retry conditions and catch ladder. */
export const SDK_ERRORS: SdkErrorClasses = {
  APIError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
}

/** Builds a fresh client for one call. */
export function createClient(config: AnthropicConfig, apiKey: string): Anthropic {
  return new Anthropic({
    apiKey,
    authToken: null,
    webhookKey: null,
    baseURL: config.baseURL,
    logLevel: 'off',
    openTelemetry: { traces: false, propagation: false },
    // the adapter runs the retries itself: the SDK's sleep can be neither capped nor cancelled
    maxRetries: 0,
    timeout: config.timeoutMs,
    fetch: capturingFetch(),
    defaultHeaders: { ...attributionHeaders(), ...config.headers },
  })
}
