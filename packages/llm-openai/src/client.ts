/**
 * The per-call `openai` SDK client. The SDK does one request attempt — URL joining,
 * auth, the per-attempt timeout, typed errors — and is shielded from the ambient environment
 * (`OPENAI_*` variables, `OPENAI_LOG`). Retries are the adapter's (`retries.ts`).
 */
import { attributionHeaders, redactTruncated } from '@bridle/llm'
import OpenAI from 'openai'
import type { OpenAICompatConfig } from './config.js'

/** Placeholder key for keyless servers; its `authorization` header is removed. */
const NO_KEY_PLACEHOLDER = 'bridle-no-key'

/** Cap on how much of a failed answer's body is kept for classification. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

/** What the capturing fetch saw of the last failed attempt. */
export interface CallRecord {
  failure?: { status: number; text: string; headers: Headers }
}

/**
 * Builds a fresh client for one call. `apiKey === null` means keyless. `record` receives the body
 * of every non-2xx answer, because the SDK keeps only `body.error` and loses legacy shapes.
 */
export function createClient(config: OpenAICompatConfig, apiKey: string | null, record: CallRecord): OpenAI {
  const headers: Record<string, string | null> = { ...attributionHeaders(), ...config.headers }
  if (apiKey === null) headers.authorization = null
  return new OpenAI({
    apiKey: apiKey ?? NO_KEY_PLACEHOLDER,
    baseURL: config.baseURL,
    organization: null,
    project: null,
    logLevel: 'off',
    // the adapter runs the retries itself (retries.ts): the SDK's sleep can be neither capped nor cancelled
    maxRetries: 0,
    timeout: config.timeoutMs,
    fetch: capturingFetch(record),
    defaultHeaders: headers,
  })
}

/**
 * A fetch that resolves `globalThis.fetch` at call time (so test guards apply) and, for a non-2xx
 * answer, reads up to 64 KiB of the body into `record` and hands the SDK an equivalent response.
 */
function capturingFetch(record: CallRecord): typeof fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init)
    if (response.ok) return response
    const text = await readCapped(response)
    record.failure = { status: response.status, text, headers: new Headers(response.headers) }
    const nullBody = [101, 103, 204, 205, 304].includes(response.status)
    return new Response(nullBody ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}

async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return ''
  const reader = response.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  try {
    while (size < MAX_ERROR_BODY_BYTES) {
      const { done, value } = await reader.read()
      if (done) break
      parts.push(value)
      size += value.byteLength
    }
  } catch {
    // a body that breaks mid-read still classifies by status
  } finally {
    reader.cancel().catch(() => {})
  }
  const whole = Buffer.concat(parts)
  const text = new TextDecoder('utf-8').decode(whole.subarray(0, MAX_ERROR_BODY_BYTES))
  // a body cut at the cap may end inside a secret, whose prefix no filter would recognize later
  return whole.byteLength >= MAX_ERROR_BODY_BYTES ? redactTruncated(text) : text
}
