export { Workspace, CWD_VARIABLE } from './plugin.js'
export { Workspace as default } from './plugin.js'
export { Config, ConfigSchema, type WorkspaceConfig, type WorkspaceConfigInput } from './config.js'
export { cwdOf } from './cwd.js'
export { formatGitStatus, parseGitStatus, probeGit, type GitProbeOptions, type GitStatus } from './git.js'
export {
  CWD_CONTEXT,
  CWD_CONTEXT_ORDER,
  GIT_CONTEXT,
  GIT_CONTEXT_ORDER,
  PATHS_GUIDANCE,
  PATHS_SECTION,
  PATHS_SECTION_ORDER,
} from './guidance.js'
