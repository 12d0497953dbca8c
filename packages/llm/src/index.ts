export * from './ids.js'
export * from './content.js'
export * from './source.js'
export * from './message.js'
export * from './request.js'
export * from './stream.js'
export * from './errors.js'
export { REDACTED, MIN_SECRET_LENGTH, redactSecrets, urlHasCredentials } from './secrets.js'
export { nullAsAbsent, type NullAsAbsent } from './config-field.js'
export { isRecord } from './record.js'
export * from './freeze.js'
export * from './json-limits.js'
export { extendHistory, historyBaseOf } from './history.js'
export * from './adapter.js'
export * from './attribution.js'
export * from './model.js'
export {
  AdapterRegistry,
  isValidProviderName,
  MAX_PROVIDER_NAME_LENGTH,
  type AdapterRoute,
  type RegistrationRecord,
} from './registry.js'
export { failureFinish, stripForeignReplayState } from './dispatch.js'
export * from './runtime.js'
export * from './assembler.js'
