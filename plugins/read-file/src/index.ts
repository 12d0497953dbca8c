export { ReadFile, ReadFileParameters, type ReadFileArguments } from './plugin.js'
export { ReadFile as default } from './plugin.js'
export { Config, ConfigSchema, type ReadFileConfig } from './config.js'
export { confineToWorkspace, isInside, workspaceRootOf, type WorkspaceAgent } from './confine.js'
export { openInWorkspace, type ConfinedFile } from './open-confined.js'
export { readPage, type PageOptions } from './read-lines.js'
export { ReadFileError } from './errors.js'
export {
  READ_FILE_DESCRIPTION,
  READ_FILE_GUIDANCE,
  READ_FILE_GUIDANCE_ORDER,
  READ_FILE_GUIDANCE_SECTION,
  READ_FILE_TOOL,
} from './guidance.js'
