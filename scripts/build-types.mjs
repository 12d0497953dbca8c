#!/usr/bin/env node
// The declarations of every package from ONE TypeScript program (`pnpm build` runs it beside the JavaScript builds).
// A program per package parsed and checked the declarations of Node, zod, cordis and openai once per package, which
// was most of a cold build; here each is read once. `@bridle/*` imports resolve to the sibling package's source (its
// published entry points only), and each `packages/x/src/y.ts` is written to `packages/x/dist/y.d.ts`.
//
//   node scripts/build-types.mjs [--out <dir>]   --out writes the tree under <dir> instead (to compare two builds)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))
const outArg = process.argv.indexOf('--out')
const outRoot = outArg === -1 ? root : resolve(process.argv[outArg + 1] ?? '')

/** Every workspace package: its folder, name and published entry points (`exports` subpaths → source files). */
function workspacePackages() {
  const found = []
  for (const group of ['packages', 'plugins']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name)
      if (!existsSync(join(dir, 'package.json'))) continue
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      const entries = {}
      for (const [key, value] of Object.entries(manifest.exports ?? {})) {
        const target = typeof value === 'string' ? value : value.import
        const match = /^\.\/dist\/(.+)\.js$/.exec(target ?? '')
        if (match !== null) entries[key] = join(dir, 'src', `${match[1]}.ts`)
      }
      found.push({ dir, name: manifest.name, entries })
    }
  }
  return found
}

// A folder under src/ with its own tsconfig.json is a separately compiled bundle (the CLI's browser viewer):
// it has no declarations to publish and is not checked with the Node settings.
function sourceFiles(dir) {
  const entries = readdirSync(join(dir, 'src'), { withFileTypes: true, recursive: true })
  const bundles = entries
    .filter((entry) => entry.isFile() && entry.name === 'tsconfig.json')
    .map((e) => e.parentPath + sep)
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !bundles.some((bundle) => file.startsWith(bundle)))
}

const packages = workspacePackages()
// Only published entry points are mapped, so a type reachable only through a private module of another package
// cannot be named in a declaration by a path a consumer could not import (checked again below).
const paths = {}
for (const pkg of packages) {
  for (const [key, file] of Object.entries(pkg.entries)) {
    paths[key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`] = [file]
  }
}

const base = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.base.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => fail([diagnostic]),
  },
)
const options = {
  ...base.options,
  paths,
  rootDir: root,
  outDir: join(root, '.declarations'),
  noEmit: false,
  declaration: true,
  emitDeclarationOnly: true,
  sourceMap: false,
  declarationMap: false,
}

const program = ts.createProgram({ rootNames: packages.flatMap((pkg) => sourceFiles(pkg.dir)), options })
const diagnostics = ts.getPreEmitDiagnostics(program)
if (diagnostics.length > 0) fail(diagnostics)

/** Where `<outDir>/packages/x/src/y.d.ts` goes (`packages/x/dist/y.d.ts`), and the package's folder. */
function destination(emitted) {
  const [group, name, src, ...rest] = relative(options.outDir, emitted).split(sep)
  if (src !== 'src') throw new Error(`build-types: unexpected output ${emitted}`)
  return {
    file: join(outRoot, group, name, 'dist', ...rest),
    source: join(root, group, name, 'src', ...rest),
    pkg: join(root, group, name),
  }
}

const written = new Set()
const leaks = []
const result = program.emit(undefined, (emitted, text) => {
  const { file, source, pkg } = destination(emitted)
  // A relative specifier that leaves the package (into another package's source) would break for a consumer.
  for (const [, specifier] of text.matchAll(/(?:from|import\()\s*['"](\.[^'"]*)['"]/g)) {
    const target = join(dirname(source), specifier)
    if (!target.startsWith(join(pkg, 'src') + sep)) leaks.push(`${relative(root, file)}: ${specifier}`)
  }
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  written.add(file)
})
if (result.diagnostics.length > 0) fail(result.diagnostics)
if (leaks.length > 0) {
  console.error(`build-types: declarations import another package's private module:\n  ${leaks.join('\n  ')}`)
  console.error("Export the type from that package's entry point and import it from there.")
  process.exit(1)
}

// tsup's clean leaves declarations alone (tsup.config.ts), so this build removes the ones whose source is gone.
for (const pkg of packages) {
  const dist = join(outRoot, relative(root, pkg.dir), 'dist')
  if (!existsSync(dist)) continue
  for (const entry of readdirSync(dist, { withFileTypes: true, recursive: true })) {
    const file = join(entry.parentPath, entry.name)
    if (entry.isFile() && entry.name.endsWith('.d.ts') && !written.has(file)) rmSync(file)
  }
}

function fail(list) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }
  console.error(ts.formatDiagnosticsWithColorAndContext(list, host))
  process.exit(1)
}
