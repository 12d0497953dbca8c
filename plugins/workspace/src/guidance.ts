/** Runtime context with the working directory. */
export const CWD_CONTEXT = 'workspace:cwd'
export const CWD_CONTEXT_ORDER = 10
/** Runtime context with the git branch and clean/dirty summary. */
export const GIT_CONTEXT = 'workspace:git'
export const GIT_CONTEXT_ORDER = 20
/** System section about paths and the working directory. */
export const PATHS_SECTION = 'workspace:paths'
/** Between the persona (0) and tool guidance (100–199). */
export const PATHS_SECTION_ORDER = 50

/** The section text: paths are capabilities, not authorization; confirm the working directory before acting. */
export const PATHS_GUIDANCE = [
  'Workspace and paths:',
  '- Paths you see (in this prompt, the runtime context or tool results) tell you what you can reach. They are capabilities, not authorization: a path being visible does not mean you are asked or allowed to act on it.',
  '- Before acting on files, confirm the working directory from the latest runtime context (or by checking it, e.g. with pwd) instead of assuming it. A directory named elsewhere, such as a source checkout of the harness, is not the task workspace.',
  '- The runtime context is a snapshot taken when the step began; if it looks stale, check again before relying on it.',
].join('\n')
