/**
 * Checks that documentation pointers resolve: source comments may cite a Markdown file under `docs/` or a README
 * (optionally with a `#heading` anchor), never a `§` section or a document outside the repository. Used by
 * `tests/doc-references.spec.ts`; see docs/README.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

/** One comment of a source file, with the 1-based line it starts on. */
export interface SourceComment {
  readonly line: number
  readonly text: string
}

/** A pointer that does not resolve, or a `§` citation. */
export interface BrokenReference {
  /** Repository-relative path of the file holding the pointer. */
  readonly file: string
  readonly line: number
  /** The pointer as written (`§`-citations: the comment line holding it). */
  readonly reference: string
  readonly problem: string
}

/**
 * Every comment of a TypeScript source, found by the compiler's own scanner: the trivia before each token of the
 * syntax tree. Strings, template literals and regular expressions are tokens, so text inside them never counts.
 */
export function commentsOf(source: string, fileName = 'source.ts'): SourceComment[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const seen = new Set<number>()
  const out: SourceComment[] = []
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return
    const children = node.getChildren(file)
    if (children.length === 0) {
      // A comment on the same line as the token before it is that token's trailing trivia, not the next one's leading.
      const ranges = [
        ...(ts.getLeadingCommentRanges(source, node.pos) ?? []),
        ...(ts.getTrailingCommentRanges(source, node.end) ?? []),
      ]
      for (const range of ranges) {
        if (seen.has(range.pos)) continue
        seen.add(range.pos)
        const line = file.getLineAndCharacterOfPosition(range.pos).line + 1
        out.push({ line, text: source.slice(range.pos, range.end) })
      }
      return
    }
    for (const child of children) visit(child)
  }
  visit(file)
  return out.sort((a, b) => a.line - b.line)
}

/**
 * The anchor GitHub gives a heading: the rendered text lower-cased, every character that is not a letter, mark,
 * digit, connector (`_`), space or hyphen removed, and each space turned into a hyphen.
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
  return rendered.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/** The anchors of every heading of a Markdown text (outside code fences), with GitHub's `-1`, `-2` for repeats. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const counts = new Map<string, number>()
  let fence: string | undefined
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1]
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0]
      else if (marker[0] === fence) fence = undefined
      continue
    }
    if (fence !== undefined) continue
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const slug = githubSlug(heading[1]!)
    const seen = counts.get(slug) ?? 0
    counts.set(slug, seen + 1)
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`)
  }
  return anchors
}

/** `path.md` or `path.md#anchor` pointers in a comment; web addresses are left out. */
export function markdownPointers(comment: string): string[] {
  const withoutUrls = comment.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ')
  return [...withoutUrls.matchAll(/[\w@.~/-]*[\w-]\.md(?:#[\w-]*)?/g)].map((m) => m[0])
}

/** Resolves pointers against the repository, caching each Markdown file's anchors. */
export class PointerResolver {
  private readonly anchors = new Map<string, Set<string>>()

  constructor(readonly repoRoot: string) {}

  /**
   * Why `pointer`, written in a file under `baseDirs[0]` (tried in order), does not resolve, or `undefined` when it
   * names an existing `docs/` page or README (and, with an anchor, one of its headings).
   */
  problemOf(pointer: string, baseDirs: readonly string[]): string | undefined {
    const [path, anchor] = pointer.split('#') as [string, string | undefined]
    const target = baseDirs.map((dir) => resolve(dir, path)).find((candidate) => isFile(candidate))
    if (target === undefined) return `no such file (looked in ${baseDirs.map((d) => this.shown(d) || '.').join(', ')})`
    const docs = join(this.repoRoot, 'docs') + sep
    if (!target.startsWith(docs) && !target.endsWith(`${sep}README.md`)) {
      return `${this.shown(target)} is neither under docs/ nor a README`
    }
    if (anchor === undefined) return undefined
    let known = this.anchors.get(target)
    if (known === undefined) {
      known = headingAnchors(readFileSync(target, 'utf8'))
      this.anchors.set(target, known)
    }
    return known.has(anchor) ? undefined : `${this.shown(target)} has no heading with anchor #${anchor}`
  }

  private shown(path: string): string {
    return relative(this.repoRoot, path).split(sep).join('/')
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/**
 * The broken pointers in the comments of one source file. A pointer resolves from the file's package folder first
 * (so `README.md#config` means the package's own README), then from the repository root (`docs/…`). `§` is never a
 * valid citation.
 */
export function brokenInSource(
  resolver: PointerResolver,
  source: string,
  file: string,
  packageDir: string,
): BrokenReference[] {
  // Parsing is the costly part; a file with neither marker cannot hold a pointer.
  if (!source.includes('.md') && !source.includes('§')) return []
  const shown = relative(resolver.repoRoot, file).split(sep).join('/')
  const broken: BrokenReference[] = []
  for (const comment of commentsOf(source, file)) {
    comment.text.split('\n').forEach((text, offset) => {
      const line = comment.line + offset
      if (text.includes('§')) {
        broken.push({
          file: shown,
          line,
          reference: text.trim(),
          problem: 'cites a § section: point to docs/<page>.md#<heading> or a README heading, or say it in the comment',
        })
      }
      for (const pointer of markdownPointers(text)) {
        const problem = resolver.problemOf(pointer, [packageDir, resolver.repoRoot])
        if (problem !== undefined) broken.push({ file: shown, line, reference: pointer, problem })
      }
    })
  }
  return broken
}

/** The `.ts` files under `dir`, recursively, in a stable order. */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sourceFiles(path))
    else if (entry.isFile() && /\.(c|m)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** The package folders whose `src/` is checked: `packages/*` and `plugins/*`. */
export function packageDirs(repoRoot: string): string[] {
  return ['packages', 'plugins'].flatMap((group) => {
    const base = join(repoRoot, group)
    if (!existsSync(base)) return []
    return readdirSync(base, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(base, entry.name))
  })
}

/** Relative links (`[text](path#anchor)`) of a Markdown file that do not resolve; web and mail links are skipped. */
export function brokenLinksInMarkdown(repoRoot: string, file: string): BrokenReference[] {
  const text = readFileSync(file, 'utf8')
  const shown = relative(repoRoot, file).split(sep).join('/')
  const broken: BrokenReference[] = []
  text.split('\n').forEach((lineText, index) => {
    for (const match of lineText.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = match[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue
      const [path, anchor] = link.split('#') as [string, string | undefined]
      const target = path === '' ? file : resolve(dirname(file), path)
      if (!existsSync(target)) {
        broken.push({ file: shown, line: index + 1, reference: link, problem: 'no such file or folder' })
        continue
      }
      if (anchor === undefined || !target.endsWith('.md')) continue
      if (!headingAnchors(readFileSync(target, 'utf8')).has(anchor)) {
        broken.push({ file: shown, line: index + 1, reference: link, problem: `no heading with anchor #${anchor}` })
      }
    }
  })
  return broken
}

/** The top-level folders a path in backticks must start with to be read as a path of this repository. */
const REPOSITORY_FOLDERS = ['packages', 'plugins', 'tests', 'scripts', 'bench', 'mutation', 'examples', 'docs']

/**
 * Paths a Markdown file names in backticks (`packages/session/src/surface/derive.ts`, `tests/support/`) that do not
 * exist, from the repository root or, in a package's README, from the package folder (`base`, where `src/…` is checked
 * too). Patterns such as `plugins/<name>/` (or any with `*`) are not paths and are skipped.
 */
export function brokenPathsInMarkdown(repoRoot: string, file: string, base = repoRoot): BrokenReference[] {
  const shown = relative(repoRoot, file).split(sep).join('/')
  const broken: BrokenReference[] = []
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((lineText, index) => {
      for (const match of lineText.matchAll(/`([^`\s]+)`/g)) {
        const path = match[1]!
        const named = REPOSITORY_FOLDERS.some((folder) => path.startsWith(`${folder}/`))
        // in a package's README, `src/…` names a file of that package
        if ((!named && !(base !== repoRoot && path.startsWith('src/'))) || /[*<>{}$]/.test(path)) continue
        if (existsSync(join(repoRoot, path)) || existsSync(join(base, path))) continue
        broken.push({ file: shown, line: index + 1, reference: path, problem: 'no such file or folder' })
      }
    })
  return broken
}
