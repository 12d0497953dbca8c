import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatGitStatus, parseGitStatus, probeGit } from '../src/index.js'

const bounds = { binary: 'git', timeoutMs: 10_000, maxBytes: 256 * 1024 }
let base: string
let repo: string
let plain: string

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  })
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'bridle-git-'))
  repo = join(base, 'repo')
  plain = join(base, 'plain')
  execFileSync('mkdir', ['-p', repo, plain])
  git(repo, 'init', '-q', '-b', 'main')
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('parseGitStatus / formatGitStatus (pure)', () => {
  it('reads branch, upstream, ahead/behind and counts', () => {
    const out = [
      '# branch.oid 0123456789abcdef0123456789abcdef01234567',
      '# branch.head feature/x',
      '# branch.upstream origin/feature/x',
      '# branch.ab +2 -1',
      '1 M. N... 100644 100644 100644 aaa bbb staged.ts',
      '1 .M N... 100644 100644 100644 aaa bbb worktree.ts',
      '1 MM N... 100644 100644 100644 aaa bbb both.ts',
      '2 R. N... 100644 100644 100644 aaa bbb R100 new.ts\told.ts',
      'u UU N... 100644 100644 100644 100644 a b c conflict.ts',
      '? untracked.txt',
      '! ignored.log',
      '# branch.future-field whatever',
    ].join('\n')
    const s = parseGitStatus(out)
    expect(s).toMatchObject({
      branch: 'feature/x',
      commit: '0123456',
      upstream: 'origin/feature/x',
      ahead: 2,
      behind: 1,
      staged: 3,
      modified: 2,
      untracked: 1,
      conflicted: 1,
    })
    expect(formatGitStatus(s)).toBe(
      'git: branch feature/x (ahead 2, behind 1 of origin/feature/x), dirty: 1 conflicted, 3 staged, 2 modified, 1 untracked',
    )
  })
  it('formats clean, detached and initial states', () => {
    expect(formatGitStatus(parseGitStatus('# branch.oid abcdef1234\n# branch.head main\n'))).toBe(
      'git: branch main, clean',
    )
    expect(formatGitStatus(parseGitStatus('# branch.oid abcdef1234\n# branch.head (detached)\n'))).toBe(
      'git: detached HEAD at abcdef1, clean',
    )
    expect(formatGitStatus(parseGitStatus('# branch.oid (initial)\n# branch.head main\n? a\n'))).toBe(
      'git: branch main (no commits yet), dirty: 1 untracked',
    )
  })
  it('marks truncated output as partial and drops the cut last line', () => {
    const s = parseGitStatus('# branch.oid abcdef1234\n# branch.head main\n? a\n? b\n? c-cut-mid', true)
    expect(s.untracked).toBe(2)
    expect(formatGitStatus(s)).toBe(
      'git: branch main, dirty: 2 untracked (status output too large; counts are partial)',
    )
  })
  it('never includes file names', () => {
    const s = parseGitStatus('# branch.oid abcdef1234\n# branch.head main\n? secret-plan.md\n')
    expect(formatGitStatus(s)).not.toContain('secret-plan')
  })
})

describe('probeGit (real git)', () => {
  it('reports a fresh repository, then a dirty one, then a clean one', async () => {
    expect(formatGitStatus(probeGit(repo, bounds)!)).toBe('git: branch main (no commits yet), clean')
    await writeFile(join(repo, 'a.txt'), 'a\n')
    expect(formatGitStatus(probeGit(repo, bounds)!)).toBe('git: branch main (no commits yet), dirty: 1 untracked')
    git(repo, 'add', 'a.txt')
    git(repo, 'commit', '-q', '-m', 'first')
    expect(formatGitStatus(probeGit(repo, bounds)!)).toBe('git: branch main, clean')
    await writeFile(join(repo, 'a.txt'), 'changed\n')
    expect(formatGitStatus(probeGit(repo, bounds)!)).toBe('git: branch main, dirty: 1 modified')
    git(repo, 'checkout', '-q', '--', 'a.txt')
  })
  it('is absent outside a repository', () => {
    expect(probeGit(plain, bounds)).toBeUndefined()
  })
  it('is absent for a directory that does not exist', () => {
    expect(probeGit(join(base, 'missing'), bounds)).toBeUndefined()
  })
  it('is absent when git is missing', () => {
    expect(probeGit(repo, { ...bounds, binary: join(base, 'no-such-git') })).toBeUndefined()
  })
  it('bounds the output size: a huge status is summarised as partial', async () => {
    for (let i = 0; i < 300; i++) await writeFile(join(repo, `untracked-file-number-${i}.txt`), 'x')
    const s = probeGit(repo, { ...bounds, maxBytes: 2048 })!
    expect(s.truncated).toBe(true)
    expect(s.untracked).toBeGreaterThan(0)
    expect(s.untracked).toBeLessThan(300)
    expect(formatGitStatus(s)).toMatch(
      /^git: branch main, dirty: \d+ untracked \(status output too large; counts are partial\)$/,
    )
    const full = probeGit(repo, bounds)!
    expect(full.untracked).toBe(300)
  })
  it('bounds the time: a git that hangs is killed and the context is absent', async () => {
    const slow = join(base, 'slow-git.sh')
    await writeFile(slow, '#!/bin/sh\nsleep 5\necho "# branch.head main"\n', { mode: 0o755 })
    expect(probeGit(repo, { ...bounds, binary: slow, timeoutMs: 200 })).toBeUndefined()
  })
})
