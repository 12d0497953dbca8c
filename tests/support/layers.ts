/**
 * The documented layer order, read from docs/README.md, and the imports that run against it. Between packages: the
 * table under "The packages and their dependencies" (a layer number, the packages, the packages they import). Inside
 * a package: the table under "Inside the packages" (its folders, bottom to top). Used by `tests/import-graph.spec.ts`.
 */
import type { PackageGraph } from './import-graph.js'

/** One package's row of the package table. */
export interface PackageRow {
  readonly layer: number
  /** The packages its row says it imports, as package names (`@bridle/llm`, `bridle`). */
  readonly imports: readonly string[]
}

/** The lines of the section under `heading` (up to the next heading of its level), or a clear error. */
function section(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n')
  const start = lines.indexOf(heading)
  if (start === -1) throw new Error(`docs/README.md has no heading "${heading}"`)
  const level = /^#+/.exec(heading)![0].length
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}} `).test(line))
  return lines.slice(start + 1, end === -1 ? undefined : end)
}

/** The cells of a Markdown table row, or `undefined` for a line that is not one. */
function cells(line: string): string[] | undefined {
  if (!line.startsWith('|')) return undefined
  return line
    .slice(1, line.endsWith('|') ? -1 : undefined)
    .split('|')
    .map((cell) => cell.trim())
}

/** A short name of the imports column (`llm`, `plugin-mcp`, `bridle`) as a package name. */
const packageName = (short: string) => (short === 'bridle' ? 'bridle' : `@bridle/${short}`)

/** The package table: for each package (named in backticks in the second column), its layer and imports. */
export function packageRows(markdown: string): Map<string, PackageRow> {
  const rows = new Map<string, PackageRow>()
  for (const line of section(markdown, '## The packages and their dependencies')) {
    const row = cells(line)
    if (row === undefined || !/^\d+$/.test(row[0] ?? '')) continue
    const imports = (row[2] ?? '')
      .replace(/\([^)]*\)/g, '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && name !== '—')
      .map(packageName)
    for (const [, name] of (row[1] ?? '').matchAll(/`([^`]+)`/g)) rows.set(name!, { layer: Number(row[0]), imports })
  }
  return rows
}

/** The folder table: for each package, its `src/` folders from bottom to top. */
export function folderOrders(markdown: string): Map<string, string[]> {
  const orders = new Map<string, string[]>()
  for (const line of section(markdown, '## Inside the packages')) {
    const row = cells(line)
    const name = /^`([^`]+)`$/.exec(row?.[0] ?? '')?.[1]
    if (row === undefined || name === undefined) continue
    orders.set(
      name,
      [...(row[1] ?? '').matchAll(/`([^`/]+)\/`/g)].map((m) => m[1]!),
    )
  }
  return orders
}

/**
 * The imports of package `name` that run against the package table: to a package of the same or a higher layer, to
 * one its row does not list, or into another package's files; and what its row lists that it does not import.
 */
export function packageViolations(graph: PackageGraph, name: string, rows: Map<string, PackageRow>): string[] {
  const own = rows.get(name)
  if (own === undefined) return [`${graph.dir} (${name}): not in the package table of docs/README.md`]
  const problems: string[] = []
  const imported = new Set<string>()
  for (const edge of graph.edges) {
    const at = `${edge.from}:${edge.line}`
    if (edge.file !== undefined && !edge.file.startsWith(`${graph.dir}/src/`)) {
      problems.push(`${at}: imports ${edge.file}, a file of another package (import its package instead)`)
    }
    if (edge.package === undefined || edge.package === name) continue
    imported.add(edge.package)
    const target = rows.get(edge.package)
    if (target === undefined) {
      problems.push(`${at}: imports ${edge.package}, which the package table does not list`)
    } else if (target.layer >= own.layer) {
      problems.push(
        `${at}: ${name} (layer ${own.layer}) imports ${edge.package} (layer ${target.layer}): imports only go down`,
      )
    } else if (!own.imports.includes(edge.package)) {
      problems.push(`${at}: imports ${edge.package}, which the row of ${name} does not list`)
    }
  }
  for (const listed of own.imports) {
    if (!imported.has(listed))
      problems.push(`${graph.dir} (${name}): its row lists ${listed}, which it does not import`)
  }
  return problems
}

/**
 * The imports between a package's folders that point up the documented order (`order`, bottom to top; files directly
 * in `src/`, the entry points, sit above every folder), and the folders the order does not name.
 */
export function folderViolations(graph: PackageGraph, order: readonly string[]): string[] {
  const src = `${graph.dir}/src/`
  const folderOf = (file: string) => {
    const rest = file.slice(src.length)
    return rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : ''
  }
  const rank = (folder: string) => (folder === '' ? order.length : order.indexOf(folder))
  const problems = new Set<string>()
  for (const file of graph.files) {
    const folder = folderOf(file)
    if (rank(folder) === -1) problems.add(`${src}${folder}/: a folder the order (${order.join(' → ')}) does not name`)
  }
  for (const edge of graph.edges) {
    if (edge.file === undefined || !edge.file.startsWith(src)) continue
    const from = folderOf(edge.from)
    const to = folderOf(edge.file)
    if (rank(from) === -1 || rank(to) === -1 || rank(to) <= rank(from)) continue
    problems.add(
      `${edge.from}:${edge.line}: ${from}/ imports ${edge.file.slice(src.length)} from ${to}/, which is above it ` +
        `(${order.join(' → ')})`,
    )
  }
  return [...problems]
}
