/** API keys: what a usable key is, and the error that names where a bad one came from (never the key). */
import { LlmError } from './errors.js'

export type NormalizedApiKey = { ok: true; key: string } | { ok: false; reason: 'empty' | 'illegalCharacters' }

/** Trims an API key; a usable key is non-empty printable ASCII (0x21–0x7E). */
export function normalizeApiKey(raw: string | null | undefined): NormalizedApiKey {
  const key = typeof raw === 'string' ? raw.trim() : ''
  if (key === '') return { ok: false, reason: 'empty' }
  if (!/^[\x21-\x7e]+$/.test(key)) return { ok: false, reason: 'illegalCharacters' }
  return { ok: true, key }
}

/**
 * Returns the normalized key or throws `LlmError` code `INVALID_CREDENTIAL` whose message names `ref`
 * (for example the environment variable) and never the key itself.
 */
export function assertUsableApiKey(raw: string | null | undefined, ref: string): string {
  const result = normalizeApiKey(raw)
  if (result.ok) return result.key
  const problem = result.reason === 'empty' ? 'is empty' : 'contains characters outside printable ASCII'
  throw new LlmError(`API key from ${ref} ${problem}`, 'INVALID_CREDENTIAL')
}
