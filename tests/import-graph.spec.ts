/**
 * The import graph of every package's `src/`, read with the TypeScript compiler API (tests/support/import-graph.ts;
 * `typescript` is the workspace's own compiler, so the graph is what `tsc` sees, type-only imports included): no
 * package has an import circle, every import between packages goes down the package table of docs/README.md (and each
 * row lists exactly what its package imports), and inside the packages that table's folder order names, imports only
 * point down (docs/README.md#inside-the-packages). The last block plants circles and upward imports in a temporary
 * copy and in memory, and expects the failures with the files named.
 */
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { packageDirs } from './support/doc-references.js'
import { describeCircle, findCircles, readPackageGraph, type PackageGraph } from './support/import-graph.js'
import { folderOrders, folderViolations, packageRows, packageViolations } from './support/layers.js'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const docs = readFileSync(join(repoRoot, 'docs', 'README.md'), 'utf8')

/** Every workspace package: its name and its graph. */
const packages: { name: string; graph: PackageGraph }[] = packageDirs(repoRoot).flatMap((dir) => {
  const manifest = join(dir, 'package.json')
  try {
    const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }
    return [{ name, graph: readPackageGraph(repoRoot, relative(repoRoot, dir).split('\\').join('/')) }]
  } catch {
    return []
  }
})

const circlesOf = (graph: PackageGraph) =>
  findCircles(graph.files, graph.edges).map((circle) => describeCircle(graph.dir, circle))

describe('the import graph of every package', () => {
  it('was read: every package, its files and their imports', () => {
    expect(packages.length).toBeGreaterThan(15)
    expect(packages.reduce((n, p) => n + p.graph.files.length, 0)).toBeGreaterThan(250)
    const session = packages.find((p) => p.name === '@bridle/session')!.graph
    // a type-only import is an edge too
    expect(session.edges).toContainEqual(
      expect.objectContaining({
        from: 'packages/session/src/log/persistence.ts',
        file: 'packages/session/src/log/session.ts',
      }),
    )
  })

  it('has no import circle inside any package', () => {
    const circles = packages.flatMap(({ graph }) => circlesOf(graph))
    expect(circles, circles.join('\n')).toEqual([])
  })

  it('imports between packages only go down the package table of docs/README.md, which lists every import', () => {
    const rows = packageRows(docs)
    expect(rows.size).toBeGreaterThanOrEqual(packages.length)
    const problems = packages.flatMap(({ name, graph }) => packageViolations(graph, name, rows))
    expect(problems, problems.join('\n')).toEqual([])
    // the table names no package the workspace does not have
    const names = new Set(packages.map((p) => p.name))
    expect([...rows.keys()].filter((name) => !names.has(name))).toEqual([])
  })

  it('inside the packages the folder table names, imports only point down its folders', () => {
    const orders = folderOrders(docs)
    expect([...orders.keys()].sort()).toEqual(['@bridle/agent-loop', '@bridle/session'])
    const problems = [...orders].flatMap(([name, order]) => {
      const found = packages.find((p) => p.name === name)
      return found === undefined ? [`${name}: no such package`] : folderViolations(found.graph, order)
    })
    expect(problems, problems.join('\n')).toEqual([])
  })
})

describe('the checker itself', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'bridle-import-graph-'))
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  it('finds a circle planted in a copy of a package, and names its files', () => {
    const root = join(scratch, 'planted-circle')
    cpSync(join(repoRoot, 'packages', 'session', 'src'), join(root, 'packages', 'session', 'src'), { recursive: true })
    expect(circlesOf(readPackageGraph(root, 'packages/session'))).toEqual([])
    // the event vocabulary now imports the store, which imports it
    appendFileSync(
      join(root, 'packages', 'session', 'src', 'events', 'events.ts'),
      "\nexport type { SessionStore } from '../log/store.js'\n",
    )
    const graph = readPackageGraph(root, 'packages/session')
    expect(circlesOf(graph)).toEqual(['packages/session/src/events/events.ts → log/store.ts → events/events.ts'])
    // and it runs up the folder order
    const order = folderOrders(docs).get('@bridle/session')!
    expect(folderViolations(graph, order)).toContainEqual(
      expect.stringMatching(
        /^packages\/session\/src\/events\/events\.ts:\d+: events\/ imports log\/store\.ts from log\//,
      ),
    )
  })

  it('finds circles in memory: through several files, of type imports, and a file that imports itself', () => {
    const files = ['p/src/a.ts', 'p/src/b.ts', 'p/src/c.ts', 'p/src/d.ts', 'p/src/e.ts']
    const edge = (from: string, to: string) => ({ from: `p/src/${from}`, file: `p/src/${to}` })
    const edges = [edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts'), edge('c.ts', 'a.ts'), edge('c.ts', 'd.ts')]
    expect(findCircles(files, edges).map((c) => describeCircle('p', c))).toEqual(['p/src/a.ts → b.ts → c.ts → a.ts'])
    expect(findCircles(files, [...edges, edge('e.ts', 'e.ts')]).map((c) => describeCircle('p', c))).toEqual([
      'p/src/a.ts → b.ts → c.ts → a.ts',
      'p/src/e.ts → e.ts',
    ])
    const root = join(scratch, 'type-circle')
    mkdirSync(join(root, 'packages', 'x', 'src'), { recursive: true })
    writeFileSync(join(root, 'packages', 'x', 'src', 'a.ts'), "import type { B } from './b.js'\nexport type A = B[]\n")
    writeFileSync(join(root, 'packages', 'x', 'src', 'b.ts'), "export type B = import('./a.js').A | string\n")
    const graph = readPackageGraph(root, 'packages/x')
    expect(circlesOf(graph)).toEqual(['packages/x/src/a.ts → b.ts → a.ts'])
  })

  it('reports imports up or across the package table, unlisted ones, listed ones never made, and reaching in', () => {
    const root = join(scratch, 'planted-layers')
    mkdirSync(join(root, 'packages', 'scope', 'src'), { recursive: true })
    writeFileSync(join(root, 'packages', 'scope', 'src', 'index.ts'), "import { llm } from '@bridle/llm'\n")
    mkdirSync(join(root, 'packages', 'tools', 'src'), { recursive: true })
    writeFileSync(
      join(root, 'packages', 'tools', 'src', 'index.ts'),
      [
        "import '@bridle/scope'",
        "import type { Inbox } from '@bridle/inbox'",
        "import * as openai from '@bridle/llm-openai/testing'",
        "import '../../scope/src/index.js'",
      ].join('\n'),
    )
    const rows = packageRows(docs)
    expect(packageViolations(readPackageGraph(root, 'packages/scope'), '@bridle/scope', rows)).toEqual([
      'packages/scope/src/index.ts:1: @bridle/scope (layer 1) imports @bridle/llm (layer 2): imports only go down',
    ])
    const tools = packageViolations(readPackageGraph(root, 'packages/tools'), '@bridle/tools', rows)
    expect(tools).toEqual([
      'packages/tools/src/index.ts:2: @bridle/tools (layer 4) imports @bridle/inbox (layer 4): imports only go down',
      'packages/tools/src/index.ts:3: imports @bridle/llm-openai, which the row of @bridle/tools does not list',
      'packages/tools/src/index.ts:4: imports packages/scope/src/index.ts, a file of another package (import its package instead)',
      'packages/tools (@bridle/tools): its row lists @bridle/llm, which it does not import',
      'packages/tools (@bridle/tools): its row lists @bridle/system-prompt, which it does not import',
      'packages/tools (@bridle/tools): its row lists @bridle/session, which it does not import',
    ])
    expect(packageViolations(readPackageGraph(root, 'packages/tools'), '@bridle/nameless', rows)).toEqual([
      'packages/tools (@bridle/nameless): not in the package table of docs/README.md',
    ])
  })
})
