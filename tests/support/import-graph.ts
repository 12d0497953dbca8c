/**
 * The import graph of a package's `src/`, read with the TypeScript compiler API (`typescript`, already the workspace's
 * compiler, so no second parser can disagree with it): every `import`, `import type`, `export … from`, `import()`,
 * `import('…')` type and `declare module '…'` augmentation of every `.ts`/`.tsx` file. Type-only imports count: a
 * circle of types is still a circle for whoever reads the code. Used by `tests/import-graph.spec.ts`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'
import { sourceFiles } from './doc-references.js'

/** One import of a source file: a file of the same package, or another workspace package. */
export interface ImportEdge {
  /** Repository-relative path of the importing file. */
  readonly from: string
  readonly line: number
  readonly specifier: string
  /** Repository-relative path of the imported file, for a relative import. */
  readonly file?: string
  /** The imported package's name, for a bare `@bridle/…` or `bridle` import. */
  readonly package?: string
}

export interface PackageGraph {
  /** Repository-relative folder of the package, e.g. `packages/session`. */
  readonly dir: string
  /** Its source files, repository-relative. */
  readonly files: readonly string[]
  readonly edges: readonly ImportEdge[]
}

/** The module specifiers a source text names, with their 1-based lines. */
export function specifiersOf(fileName: string, text: string): { specifier: string; line: number }[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind)
  const found: { specifier: string; line: number }[] = []
  const add = (literal: ts.Node | undefined) => {
    if (literal === undefined || !ts.isStringLiteralLike(literal)) return
    found.push({ specifier: literal.text, line: source.getLineAndCharacterOfPosition(literal.getStart()).line + 1 })
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier)
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0])
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal)
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) add(node.name)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The source file a relative specifier names (`./x.js` is `./x.ts` or `./x.tsx`), or `undefined` (a CSS file). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const target = resolve(dirname(from), specifier)
  const stem = target.replace(/\.(m|c)?jsx?$/, '')
  const candidates = [target, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(target, 'index.ts')]
  return candidates.find((file) => /\.(m|c)?tsx?$/.test(file) && existsSync(file))
}

/** Reads the import graph of `repoRoot/dir/src`. */
export function readPackageGraph(repoRoot: string, dir: string): PackageGraph {
  const shown = (file: string) => relative(repoRoot, file).split(sep).join('/')
  const files = sourceFiles(join(repoRoot, dir, 'src'))
  const edges: ImportEdge[] = []
  for (const file of files) {
    for (const { specifier, line } of specifiersOf(file, readFileSync(file, 'utf8'))) {
      const from = shown(file)
      if (specifier.startsWith('.')) {
        const target = resolveRelative(file, specifier)
        if (target !== undefined) edges.push({ from, line, specifier, file: shown(target) })
      } else {
        const name = /^(@bridle\/[^/]+|bridle)(\/|$)/.exec(specifier)?.[1]
        if (name !== undefined) edges.push({ from, line, specifier, package: name })
      }
    }
  }
  return { dir, files: files.map(shown), edges }
}

/**
 * Every import circle of a graph, one per strongly connected component: a shortest path from the component's first
 * file (in path order) back to itself, e.g. `['a.ts', 'b.ts', 'a.ts']`. A file that imports itself is a circle too.
 */
export function findCircles(files: readonly string[], edges: readonly { from: string; file?: string }[]): string[][] {
  const next = new Map<string, Set<string>>(files.map((file) => [file, new Set()]))
  for (const edge of edges) if (edge.file !== undefined) next.get(edge.from)?.add(edge.file)
  // Tarjan's strongly connected components
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const connect = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to)
        low.set(file, Math.min(low.get(file)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || next.get(file)?.has(file)) components.push(component.sort())
  }
  for (const file of files) if (!index.has(file)) connect(file)
  return components.map((component) => shortestCircle(component[0]!, new Set(component), next))
}

/** A shortest path from `start` back to itself inside `within` (breadth first). */
function shortestCircle(start: string, within: Set<string>, next: Map<string, Set<string>>): string[] {
  const previous = new Map<string, string>()
  const queue = [start]
  for (let at = 0; at < queue.length; at++) {
    const file = queue[at]!
    for (const to of [...(next.get(file) ?? [])].sort()) {
      if (!within.has(to)) continue
      if (to === start) {
        const path = [file]
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!)
        return [...path, start]
      }
      if (previous.has(to)) continue
      previous.set(to, file)
      queue.push(to)
    }
  }
  // unreachable: every file of a strongly connected component reaches every other
  return [start, start]
}

/** A circle as one line: `packages/x/src/a.ts → b.ts → a.ts`, each file after the first relative to the package's `src/`. */
export function describeCircle(dir: string, circle: readonly string[]): string {
  const src = `${dir}/src/`
  return circle.map((file, i) => (i === 0 ? file : file.startsWith(src) ? file.slice(src.length) : file)).join(' → ')
}
