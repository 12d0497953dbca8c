export { Environment, ENVIRONMENT_CONTEXT_ORDER, ENVIRONMENT_VARIABLE, REGION_VARIABLE } from './plugin.js'
export { Environment as default } from './plugin.js'
export {
  Config,
  ConfigSchema,
  looksLikeSecret,
  SECRET_NAME_PATTERN,
  SECRET_VALUE_PATTERN,
  type EnvironmentConfig,
  type EnvironmentConfigInput,
} from './config.js'
export { looksLikeRandomToken } from './secret-token.js'
export { renderEnvironment } from './render.js'
