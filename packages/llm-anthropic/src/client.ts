/**
 * The per-call `@anthropic-ai/sdk` client. The SDK does one request attempt — URL joining, the `x-api-key` and
 * `anthropic-version` headers, the per-attempt timeout, typed errors — and is shielded from the ambient
 * environment: the key is always passed (so `ANTHROPIC_AUTH_TOKEN` and credential profiles are never read), the
 * base URL too (`ANTHROPIC_BASE_URL` is ignored), logging is off (`ANTHROPIC_LOG`), and so are the SDK's own
 * OpenTelemetry spans and trace headers. Retries are the adapter's (`retries.ts`).
 */
import Anthropic from '@anthropic-ai/sdk'
import { attributionHeaders } from '@bridle/llm'
import type { AnthropicConfig } from './config.js'

/** Cap on how much of a failed answer's body is kept for classification. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

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
    fetch: cappedErrorFetch,
    defaultHeaders: { ...attributionHeaders(), ...config.headers },
  })
}

/**
 * A fetch that resolves `globalThis.fetch` at call time (so test guards apply) and hands the SDK at most 64 KiB of
 * a non-2xx answer's body: the SDK reads an error body whole, and a proxy's error page has no size limit.
 */
async function cappedErrorFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await globalThis.fetch(input, init)
  if (response.ok || response.body === null) return response
  const reader = response.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      parts.push(next.value)
      size += next.value.byteLength
      if (size >= MAX_ERROR_BODY_BYTES) break
    }
  } catch {
    // a body that breaks mid-read still classifies by its status
  } finally {
    reader.cancel().catch(() => {})
  }
  const text = new TextDecoder('utf-8').decode(Buffer.concat(parts).subarray(0, MAX_ERROR_BODY_BYTES))
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers })
}
