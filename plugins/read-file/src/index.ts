export { ReadFile, ReadFileParameters, type ReadFileArguments } from './plugin.js'
export { ReadFile as default } from './plugin.js'
export { Config, ConfigSchema, type ReadFileConfig, type ReadFileConfigInput } from './config.js'
export { confineToWorkspace, isInside, workspaceRootOf, type WorkspaceAgent } from './confine.js'
export { openInWorkspace, type ConfinedFile } from './open-confined.js'
export { readPage, type PageOptions } from './read-lines.js'
export { ReadFileError } from './errors.js'
/** Every name of guidance.ts is public: the names and orders the plugin registers, and its guidance text. */
export * from './guidance.js'
