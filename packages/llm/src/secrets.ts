/**
 * Redaction of credentials Bridle knows (an API key it read, a value of an environment variable it reads
 * for keys) from text it stores or prints: error messages, log lines, terminal output. Pure functions;
 * each caller passes the secrets it holds.
 */

/** What a known secret is replaced with. */
export const REDACTED = '[redacted]'

/**
 * Values shorter than this are not treated as secrets: replacing every `none` or `EMPTY` (the dummy keys
 * some local servers take) would mangle ordinary words, and no real API key is that short.
 */
export const MIN_SECRET_LENGTH = 8

/** `scheme://user:password@` — the userinfo part of any URL inside a text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi

/**
 * Returns `text` with every secret of at least `MIN_SECRET_LENGTH` characters replaced by `[redacted]` —
 * also in its JSON-escaped form, so a secret inside printed JSON is caught — and the userinfo of every
 * URL (`http://user:pass@host` → `http://[redacted]@host`). Longer secrets are replaced first, so a
 * secret that contains another is removed whole.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  let out = text
  for (const secret of secretForms(secrets)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED)
  }
  return out.replace(URL_USERINFO, `$1${REDACTED}@`)
}

/** True when `url` parses and carries a user name or password (`http://user:secret@host`). */
export function urlHasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.username !== '' || parsed.password !== ''
  } catch {
    return false
  }
}

function secretForms(secrets: Iterable<string | undefined>): string[] {
  const forms = new Set<string>()
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue
    forms.add(secret)
    forms.add(JSON.stringify(secret).slice(1, -1))
  }
  return [...forms].sort((a, b) => b.length - a.length)
}
