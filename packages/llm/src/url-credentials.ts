/**
 * Credentials inside a URL (docs/security.md#urls): the userinfo (`user:password@`) and query parameters whose names
 * say they carry a credential. Base URLs refuse both; other URLs Bridle holds (a connection string) have their values
 * added to the secret filter.
 */

/** Words that make a query parameter a credential, wherever they stand in its name. */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'sig',
  'signature',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'session',
  'sessionid',
  'jwt',
  'bearer',
])

/** Endings of a one-word name (`accesstoken`, `clientsecret`, `apikey`) that make it a credential. */
const CREDENTIAL_ENDINGS: readonly string[] = ['key', 'token', 'secret', 'password', 'passwd']

/**
 * True when a query parameter's name marks a credential. The name is split into words at punctuation and camelCase
 * boundaries (`api-key`, `api_key`, `apiKey`, `X-Amz-Signature`, `access_token`); it is a credential when a word is
 * one of key, apikey, token, secret, password, passwd, pwd, sig, signature, auth, authorization, credential(s),
 * session, sessionid, jwt, bearer, or a word ends in key, token, secret, password or passwd. `api-version` is not.
 */
export function isCredentialParameter(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
  return words.some(
    (word) =>
      CREDENTIAL_WORDS.has(word) ||
      CREDENTIAL_ENDINGS.some((ending) => word.length > ending.length && word.endsWith(ending)),
  )
}

/**
 * The values of `entries` (headers, environment variables) whose names mark a credential (`isCredentialParameter`);
 * for an `Authorization`-style value (`Bearer <token>`) the token alone too, since that is what a server echoes.
 */
export function namedCredentials(entries: Readonly<Record<string, string>> | undefined): string[] {
  const values: string[] = []
  for (const [name, value] of Object.entries(entries ?? {})) {
    if (typeof value !== 'string' || !isCredentialParameter(name)) continue
    values.push(value)
    const token = /^(?:bearer|basic|token)\s+(\S+)$/i.exec(value.trim())?.[1]
    if (token !== undefined) values.push(token)
  }
  return values
}

/** What a URL carries that is a credential. */
export interface UrlCredentials {
  /** A user name or password is present. */
  readonly userinfo: boolean
  /** Names of the credential query parameters, in order, each once. */
  readonly parameters: readonly string[]
  /** The credential values (the password, else the user name; parameter values), decoded; never print them. */
  readonly values: readonly string[]
}

const NONE: UrlCredentials = Object.freeze({ userinfo: false, parameters: [], values: [] })

/** The credentials in `url`; none when it does not parse. */
export function urlCredentials(url: string): UrlCredentials {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return NONE
  }
  const values: string[] = []
  const userinfo = parsed.username !== '' || parsed.password !== ''
  // the password is the secret; a user name alone (`https://token@host`) is one too, but beside a password it is a
  // name (`postgres`) that filtering would strike from every text that mentions it
  const secret = parsed.password !== '' ? parsed.password : parsed.username
  if (secret !== '') values.push(...new Set([safeDecode(secret), secret]))
  const parameters: string[] = []
  for (const [name, value] of parsed.searchParams) {
    if (!isCredentialParameter(name)) continue
    if (!parameters.includes(name)) parameters.push(name)
    if (value !== '') values.push(value)
  }
  return { userinfo, parameters, values }
}

/** True when `url` parses and carries a user name or password (`http://user:secret@host`). */
export function urlHasCredentials(url: string): boolean {
  return urlCredentials(url).userinfo
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
