/**
 * `@bridle/llm/secrets`: the secret filter on its own, for callers that print or store text and need nothing else of
 * the model seam (the CLI loads it before anything heavier). Everything here is also exported by `@bridle/llm`.
 */
export { REDACTED, MIN_SECRET_LENGTH, SecretFilter } from './secret-filter.js'
export { SecretStream } from './secret-stream.js'
export { knownSecrets, holdSecrets, holdUrlSecrets } from './known-secrets.js'
export {
  isCredentialParameter,
  namedCredentials,
  urlCredentials,
  urlHasCredentials,
  type UrlCredentials,
} from './url-credentials.js'
export { redactSecrets, clipRedacted, redactTruncated } from './display-redaction.js'
export { redactChunks } from './chunk-redaction.js'
