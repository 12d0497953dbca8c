/**
 * Redaction of text for a person to read (docs/security.md#what-is-shown): every secret the process holds, and — as a
 * last guard for secrets Bridle never held — the userinfo of any URL in the text. Redact first, cut after: a cut made
 * first can leave a secret's prefix that no filter recognizes.
 */
import { knownSecrets } from './known-secrets.js'
import { REDACTED } from './secret-filter.js'

/** `scheme://user:password@` — the userinfo part of any URL inside a text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi

/**
 * `text` with every secret the process holds, and every value in `extra` of at least 8 characters, replaced by
 * `[redacted]` (also in their JSON-escaped and percent-encoded forms), and the userinfo of every URL
 * (`http://user:pass@host` → `http://[redacted]@host`).
 */
export function redactSecrets(text: string, extra?: Iterable<string | undefined>): string {
  const filter = extra === undefined ? knownSecrets() : knownSecrets().with(extra)
  return filter.redact(text).replace(URL_USERINFO, `$1${REDACTED}@`)
}

/** `redactSecrets(text, extra)` cut to at most `max` characters: redacted first, then cut. */
export function clipRedacted(text: string, max: number, extra?: Iterable<string | undefined>): string {
  const clean = redactSecrets(text, extra)
  return clean.length > max ? clean.slice(0, max) : clean
}

/** `redactSecrets` for the head of a longer text (cut before it reached us): a tail that may begin a secret is dropped. */
export function redactTruncated(text: string): string {
  return knownSecrets().redactHead(text).replace(URL_USERINFO, `$1${REDACTED}@`)
}
