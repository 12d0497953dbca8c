import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * Checks an `Authorization` header against the accepted tokens: `Bearer <token>` for programs, or HTTP Basic with
 * the token as the password (any user name) so a browser can open the viewer's pages. Comparisons take the same
 * time whatever the input (digests compared with `timingSafeEqual`). Tokens are never logged or echoed.
 */
export function tokenChecker(tokens: readonly string[]): (header: string | undefined) => boolean {
  if (tokens.length === 0 || tokens.some((t) => t.length < 16)) {
    throw new Error('serve: every token must be at least 16 characters long')
  }
  const accepted = tokens.map(digest)
  const matches = (candidate: string) => {
    const d = digest(candidate)
    let ok = false
    for (const a of accepted) ok = timingSafeEqual(a, d) || ok
    return ok
  }
  return (header) => {
    if (header === undefined) return false
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (bearer !== null) return matches(bearer[1]!)
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
    if (basic === null) return false
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    return colon >= 0 && matches(decoded.slice(colon + 1))
  }
}

/** Splits `BRIDLE_SERVE_TOKEN`-style text (one token, or several separated by commas or whitespace). */
export function parseTokens(text: string | undefined): string[] {
  return (text ?? '').split(/[\s,]+/).filter((t) => t.length > 0)
}
