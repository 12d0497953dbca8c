/**
 * Unprefixed random-looking tokens. Many providers issue keys with no telltale prefix (`sk-`, `ghp_`, …): a hex key,
 * a base64 secret, a base64url token. They are recognised by shape, because a public deployment fact almost never
 * looks like that.
 */

/** Runs of token characters: the base64 and base64url alphabets together. */
const RUN = /[A-Za-z0-9+/=_-]+/g
/** Unbroken alphanumeric stretches inside a run. */
const STRETCH = /[A-Za-z0-9]{24,}/g

/**
 * True when `value` holds a run of token characters (`A-Z a-z 0-9 + / = _ -`) that looks random:
 * - an unbroken alphanumeric stretch of 24 or more characters holding both a letter and a digit (hex keys and digests,
 *   full commit ids, base62 keys); or
 * - a run of 32 or more characters mixing lower- and upper-case letters with a digit, or with upper-case letters
 *   making up at least a quarter of its letters (base64 and base64url keys, whose `+ / _ -` break the stretch).
 * Kebab and snake names (`prod-eu-west-1-blue`), UUIDs, versions and short commit ids do not match; neither do
 * CamelCase words, whose capitals start words (well under a quarter of the letters).
 */
export function looksLikeRandomToken(value: string): boolean {
  for (const [run] of value.matchAll(RUN)) {
    if (run.length < 24) continue
    for (const [stretch] of run.matchAll(STRETCH)) {
      if (/[0-9]/.test(stretch) && /[A-Za-z]/.test(stretch)) return true
    }
    if (run.length < 32) continue
    const lower = run.match(/[a-z]/g)?.length ?? 0
    const upper = run.match(/[A-Z]/g)?.length ?? 0
    if (lower === 0 || upper === 0) continue
    if (/[0-9]/.test(run) || upper * 4 >= lower + upper) return true
  }
  return false
}
