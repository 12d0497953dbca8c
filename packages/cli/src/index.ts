export { main } from './cli.js'
export {
  AppConfigSchema,
  AppConfigError,
  loadAppConfig,
  parseAppConfig,
  type AppConfig,
  type PluginRow,
} from './app-config.js'
export { boot, type BootedApp, type BootOptions } from './boot.js'
export { chooseModel, type ModelChoice } from './model-selection.js'
export { EXIT, UsageError, RuntimeFailure } from './errors.js'
export { DEFAULT_APP, resolveApp } from './default-app.js'
export { HotReloader, type ReloadReport } from './hot-reload.js'
export { attributeSections, type KnownSection, type AttributedSection } from './inspect/sections.js'
export { stepView, summarizeTurns, type StepView, type TurnSummary } from './inspect/step-view.js'
export { processIo, type Io } from './terminal.js'
