/**
 * The body of a failed answer, read within bounds. The SDKs read an error body whole, and a proxy's error page has no
 * size limit; some keep only part of a JSON body (`body.error`) and lose legacy shapes. The fetch an adapter hands its
 * SDK reads at most 64 KiB of every non-2xx answer, records it for the adapter's classification, and gives the SDK an
 * equivalent answer made of that text.
 */
import { redactTruncated } from '../display-redaction.js'

/** Cap on how much of a failed answer's body is kept. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024

/** What the fetch saw of the last failed attempt of a call. */
export interface FailedAnswerRecord {
  failure?: { status: number; text: string; headers: Headers }
}

/** Statuses whose answer may not have a body. */
const NULL_BODY_STATUSES = [101, 103, 204, 205, 304]

/**
 * A fetch that resolves `globalThis.fetch` at call time (so test guards apply) and, for a non-2xx answer, reads up to
 * 64 KiB of the body into `record` and hands the SDK an equivalent answer with that text.
 */
export function capturingFetch(record: FailedAnswerRecord = {}): typeof fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init)
    if (response.ok) return response
    const text = await readCappedText(response.body, MAX_ERROR_BODY_BYTES)
    record.failure = { status: response.status, text, headers: new Headers(response.headers) }
    return new Response(NULL_BODY_STATUSES.includes(response.status) ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}

/**
 * Reads at most `maxBytes` of `body` as UTF-8 text and cancels the rest. A body cut at the cap may end inside a
 * secret, whose prefix no filter would recognize later: then a tail that could begin a known secret is dropped. A body
 * that breaks mid-read gives what arrived.
 */
export async function readCappedText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (body === null) return ''
  const reader = body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read()
      if (done) break
      parts.push(value)
      size += value.byteLength
    }
  } catch {
    // a body that breaks mid-read still classifies by its status
  } finally {
    reader.cancel().catch(() => {})
  }
  const whole = Buffer.concat(parts)
  const text = new TextDecoder('utf-8').decode(whole.subarray(0, maxBytes))
  return whole.byteLength >= maxBytes ? redactTruncated(text) : text
}
