export { Workspace, CWD_VARIABLE } from './plugin.js'
export { Workspace as default } from './plugin.js'
export { Config, ConfigSchema, type WorkspaceConfig, type WorkspaceConfigInput } from './config.js'
export { cwdOf } from './cwd.js'
export { formatGitStatus, parseGitStatus, probeGit, type GitProbeOptions, type GitStatus } from './git.js'
/** Every name of guidance.ts is public: the names and orders the plugin registers, and its guidance text. */
export * from './guidance.js'
