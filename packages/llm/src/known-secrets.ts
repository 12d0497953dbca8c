/**
 * The credentials this process holds (docs/security.md#what-is-filtered): one `SecretFilter` that every part of
 * Bridle adds the secrets it reads to (an adapter its key and header values, the CLI the key variables it knows, a
 * backend its connection password) and that every place where text becomes durable or is shown reads. It lives on a
 * global symbol, so a second copy of `@bridle/llm` (a hot reload, a duplicate install) shares it. Secrets are never
 * forgotten: a key rotated while the process runs stays filtered, and forgetting one could only let it through.
 */
import { SecretFilter } from './secret-filter.js'
import { urlCredentials } from './url-credentials.js'

const KEY = Symbol.for('bridle.llm.knownSecrets')

type Holder = { [KEY]?: SecretFilter }

/** The process-wide filter of every credential Bridle holds. */
export function knownSecrets(): SecretFilter {
  const holder = globalThis as Holder
  return (holder[KEY] ??= new SecretFilter())
}

/** Adds credentials to the process-wide filter (values shorter than 8 characters are ignored). */
export function holdSecrets(...secrets: (string | null | undefined)[]): void {
  const filter = knownSecrets()
  for (const secret of secrets) filter.add(secret)
}

/** Adds the credentials a URL carries (its user name and password, credential query values) to the filter. */
export function holdUrlSecrets(url: string | null | undefined): void {
  if (typeof url !== 'string') return
  holdSecrets(...urlCredentials(url).values)
}
