/**
 * Source comments point only at documents in this repository: every `.md` pointer in the `src/` of a package or
 * plugin names a page under `docs/` or a README (and, with `#anchor`, one of its headings), and no comment cites a
 * `§` section. Tests cite no `§` section either. The links between the `docs/` pages and from the root README resolve
 * too.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import {
  brokenInSource,
  brokenLinksInMarkdown,
  brokenPathsInMarkdown,
  commentsOf,
  githubSlug,
  headingAnchors,
  markdownPointers,
  packageDirs,
  PointerResolver,
  sourceFiles,
  type BrokenReference,
} from './support/doc-references.js'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))

const describeBroken = (broken: readonly BrokenReference[]): string =>
  broken.map((b) => `${b.file}:${b.line}: ${b.reference} — ${b.problem}`).join('\n')

describe('comments in packages/*/src and plugins/*/src', () => {
  it('cite only docs/ pages and READMEs that exist, with headings that exist', () => {
    const resolver = new PointerResolver(repoRoot)
    const broken: BrokenReference[] = []
    let files = 0
    let pointers = 0
    for (const dir of packageDirs(repoRoot)) {
      for (const file of sourceFiles(join(dir, 'src'))) {
        files++
        const source = readFileSync(file, 'utf8')
        if (source.includes('.md')) {
          for (const comment of commentsOf(source, file)) pointers += markdownPointers(comment.text).length
        }
        broken.push(...brokenInSource(resolver, source, file, dir))
      }
    }
    // The scan really ran over the sources and met the pointers they hold.
    expect(files).toBeGreaterThan(150)
    expect(pointers).toBeGreaterThan(40)
    expect(broken, describeBroken(broken)).toEqual([])
  })
})

describe('tests', () => {
  it('cite no § section of a document outside the repository, in comments or test names', () => {
    const checker = fileURLToPath(import.meta.url)
    const testDirs = [join(repoRoot, 'tests'), ...packageDirs(repoRoot).map((dir) => join(dir, 'tests'))]
    const citing: string[] = []
    let files = 0
    for (const file of testDirs.flatMap((dir) => sourceFiles(dir))) {
      // this file and its support module spell § out to test the checker itself
      if (file === checker || file.endsWith(join('support', 'doc-references.ts'))) continue
      files++
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (line.includes('§')) citing.push(`${file.slice(repoRoot.length)}:${index + 1}: ${line.trim()}`)
        })
    }
    expect(files).toBeGreaterThan(200)
    expect(citing, citing.join('\n')).toEqual([])
  })
})

describe('links of the docs/ pages and the root README', () => {
  it('resolve to existing files and headings', () => {
    const docs = join(repoRoot, 'docs')
    const pages = readdirSync(docs).filter((name) => name.endsWith('.md'))
    expect(pages).toContain('README.md')
    const broken = [join(repoRoot, 'README.md'), ...pages.map((name) => join(docs, name))].flatMap((file) =>
      brokenLinksInMarkdown(repoRoot, file),
    )
    expect(broken, describeBroken(broken)).toEqual([])
  })

  it('name only files and folders that exist in backticks, as the docs, the root documents and the READMEs do', () => {
    const pages = readdirSync(join(repoRoot, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(repoRoot, 'docs', name))
    const roots = ['README.md', 'CONTRIBUTING.md', 'TESTING.md', 'BENCHMARKS.md', 'bench/README.md']
    const broken = [
      ...[...pages, ...roots.map((name) => join(repoRoot, name))].flatMap((file) =>
        brokenPathsInMarkdown(repoRoot, file),
      ),
      ...packageDirs(repoRoot).flatMap((dir) => brokenPathsInMarkdown(repoRoot, join(dir, 'README.md'), dir)),
    ]
    expect(broken, describeBroken(broken)).toEqual([])
  })

  it('the root README links the docs/ index', () => {
    expect(readFileSync(join(repoRoot, 'README.md'), 'utf8')).toMatch(/\]\(docs\/README\.md\)/)
  })
})

describe('the checker itself', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'bridle-doc-refs-'))
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  mkdirSync(join(scratch, 'docs'))
  mkdirSync(join(scratch, 'packages', 'x', 'src'), { recursive: true })
  writeFileSync(join(scratch, 'docs', 'guide.md'), '# Guide\n\n## Write-behind\n\n```\n# not a heading\n```\n')
  writeFileSync(join(scratch, 'packages', 'x', 'README.md'), '# x\n\n## Config\n')
  writeFileSync(join(scratch, 'NOTES.md'), '# Notes\n')
  const resolver = new PointerResolver(scratch)
  const packageDir = join(scratch, 'packages', 'x')
  const check = (source: string) =>
    brokenInSource(resolver, source, join(packageDir, 'src', 'a.ts'), packageDir).map((b) => [b.reference, b.problem])

  it('accepts pointers to docs/ pages, READMEs and their headings', () => {
    const source = [
      '/** The window (docs/guide.md#write-behind); options in README.md#config. */',
      '// see docs/guide.md and packages/x/README.md',
      'export const a = 1',
    ].join('\n')
    expect(check(source)).toEqual([])
  })

  it('reports § citations, missing files, missing headings and documents outside docs/', () => {
    const source = [
      '/**',
      ' * Surface rules (session.md §9).',
      ' * See docs/nope.md, docs/guide.md#no-such-heading and NOTES.md.',
      ' */',
      'export const b = 2 // docs/guide.md#not-a-heading',
    ].join('\n')
    const found = check(source)
    expect(found.map(([reference]) => reference)).toEqual([
      '* Surface rules (session.md §9).',
      'session.md',
      'docs/nope.md',
      'docs/guide.md#no-such-heading',
      'NOTES.md',
      'docs/guide.md#not-a-heading',
    ])
    expect(found[0]![1]).toMatch(/§ section/)
    expect(found[1]![1]).toMatch(/^no such file/)
    expect(found[3]![1]).toBe('docs/guide.md has no heading with anchor #no-such-heading')
    expect(found[4]![1]).toBe('NOTES.md is neither under docs/ nor a README')
  })

  it('reads only comments: strings, templates and regular expressions are not comments', () => {
    const source = [
      "const s = 'spec/session.md §9 // not a comment'",
      'const t = `x ${s} /* spec/x.md */ y`',
      'const r = /\\/\\/ docs\\/nope.md/',
      '/* real: docs/missing.md */',
      'export { s, t, r }',
    ].join('\n')
    expect(commentsOf(source).map((c) => c.text)).toEqual(['/* real: docs/missing.md */'])
    expect(check(source).map(([reference]) => reference)).toEqual(['docs/missing.md'])
  })

  it('reports backticked repository paths that do not exist, and skips patterns', () => {
    const page = join(scratch, 'docs', 'paths.md')
    writeFileSync(
      page,
      '`docs/guide.md`, `packages/x/README.md` and `packages/x/src/gone.ts`\n`plugins/<name>/`, `packages/*/tests`\n',
    )
    expect(brokenPathsInMarkdown(scratch, page).map((b) => [b.line, b.reference])).toEqual([
      [1, 'packages/x/src/gone.ts'],
    ])
  })

  it('leaves web addresses alone', () => {
    expect(markdownPointers('see https://example.com/guide/README.md#x and docs/guide.md')).toEqual(['docs/guide.md'])
  })

  it('computes GitHub heading anchors', () => {
    expect(githubSlug('The `llm/stream` waterfall and its terminal stage')).toBe(
      'the-llmstream-waterfall-and-its-terminal-stage',
    )
    expect(githubSlug('`inspect --cache`')).toBe('inspect---cache')
    expect(githubSlug('Step: stations S7 to S10')).toBe('step-stations-s7-to-s10')
    expect(githubSlug('Where this differs from the spec (wave 2, issue 14)')).toBe(
      'where-this-differs-from-the-spec-wave-2-issue-14',
    )
    expect(githubSlug('See [the guide](x.md) now')).toBe('see-the-guide-now')
    expect([...headingAnchors('# A\n## A\n```\n# B\n```\n### C #\n')]).toEqual(['a', 'a-1', 'c'])
  })
})
