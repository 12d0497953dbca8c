import { spawnSync } from 'node:child_process'

/** What `workspace:git` reports: the branch and a short clean/dirty summary. */
export interface GitStatus {
  /** Branch name, or `undefined` for a detached HEAD. */
  branch: string | undefined
  /** Short commit id (`undefined` before the first commit). */
  commit: string | undefined
  upstream: string | undefined
  ahead: number
  behind: number
  staged: number
  modified: number
  untracked: number
  conflicted: number
  /** The output hit the size bound; counts are lower bounds. */
  truncated: boolean
}

/** Bounds for one probe. */
export interface GitProbeOptions {
  binary: string
  timeoutMs: number
  maxBytes: number
}

/**
 * Parses `git status --porcelain=v2 --branch` output (possibly cut short) into a `GitStatus`. Pure: unknown lines
 * are ignored, so a newer git adding header fields does not break it.
 */
export function parseGitStatus(output: string, truncated = false): GitStatus {
  const status: GitStatus = {
    branch: undefined,
    commit: undefined,
    upstream: undefined,
    ahead: 0,
    behind: 0,
    staged: 0,
    modified: 0,
    untracked: 0,
    conflicted: 0,
    truncated,
  }
  const lines = output.split('\n')
  if (truncated) lines.pop() // the last line may be cut mid-way
  for (const line of lines) {
    if (line.startsWith('# branch.oid ')) {
      const oid = line.slice('# branch.oid '.length).trim()
      status.commit = oid === '(initial)' ? undefined : oid.slice(0, 7)
    } else if (line.startsWith('# branch.head ')) {
      const head = line.slice('# branch.head '.length).trim()
      status.branch = head === '(detached)' ? undefined : head
    } else if (line.startsWith('# branch.upstream ')) {
      status.upstream = line.slice('# branch.upstream '.length).trim()
    } else if (line.startsWith('# branch.ab ')) {
      const match = /^# branch\.ab \+(\d+) -(\d+)/.exec(line)
      if (match) {
        status.ahead = Number(match[1])
        status.behind = Number(match[2])
      }
    } else if (line.startsWith('1 ') || line.startsWith('2 ')) {
      const xy = line.slice(2, 4)
      if (xy[0] !== '.') status.staged++
      if (xy[1] !== '.') status.modified++
    } else if (line.startsWith('u ')) {
      status.conflicted++
    } else if (line.startsWith('? ')) {
      status.untracked++
    }
  }
  return status
}

/**
 * Formats the one-line summary the model sees, e.g. `git: branch main (ahead 1 of origin/main), dirty: 2 modified,
 * 1 untracked`. File names are never included: the context stays short and leaks no paths.
 */
export function formatGitStatus(s: GitStatus): string {
  let where = s.branch !== undefined ? `branch ${s.branch}` : `detached HEAD at ${s.commit ?? '(no commit)'}`
  if (s.branch !== undefined && s.commit === undefined) where += ' (no commits yet)'
  if (s.upstream !== undefined && (s.ahead > 0 || s.behind > 0)) {
    const parts = [s.ahead > 0 ? `ahead ${s.ahead}` : '', s.behind > 0 ? `behind ${s.behind}` : ''].filter(Boolean)
    where += ` (${parts.join(', ')} of ${s.upstream})`
  }
  const counts = [
    s.conflicted > 0 ? `${s.conflicted} conflicted` : '',
    s.staged > 0 ? `${s.staged} staged` : '',
    s.modified > 0 ? `${s.modified} modified` : '',
    s.untracked > 0 ? `${s.untracked} untracked` : '',
  ].filter(Boolean)
  if (counts.length === 0 && !s.truncated) return `git: ${where}, clean`
  const more = s.truncated ? ' (status output too large; counts are partial)' : ''
  return `git: ${where}, dirty: ${counts.join(', ') || 'many changes'}${more}`
}

/**
 * Runs `git status` for `cwd`, bounded by `timeoutMs` and `maxBytes`, and returns the parsed status, or `undefined`
 * when git is missing, `cwd` is not inside a work tree, the probe timed out or failed in any other way (the context
 * is then silently absent). Synchronous because prompt text providers are; the time bound caps the stall.
 */
export function probeGit(cwd: string, options: GitProbeOptions): GitStatus | undefined {
  const result = spawnSync(
    options.binary,
    ['--no-optional-locks', '-C', cwd, 'status', '--porcelain=v2', '--branch', '--untracked-files=normal'],
    {
      encoding: 'utf8',
      timeout: options.timeoutMs,
      maxBuffer: options.maxBytes,
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
      env: { ...process.env, LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
    },
  )
  const stdout = typeof result.stdout === 'string' ? result.stdout : ''
  const code = (result.error as NodeJS.ErrnoException | undefined)?.code
  // Node may hand back more than maxBuffer when the child wrote it in one go; never parse past the bound.
  if (code === 'ENOBUFS' && stdout.length > 0) return parseGitStatus(stdout.slice(0, options.maxBytes), true)
  if (result.error !== undefined || result.status !== 0) return undefined
  return parseGitStatus(stdout)
}
