#!/usr/bin/env node
// `pnpm lint` runs this: every workspace package follows the publishing conventions in CONTRIBUTING.md, so a new
// package cannot forget its LICENSE, pin cordis/zod as regular dependencies, or ship files outside dist/.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Source files of a package, to see which of cordis and zod it really imports. */
function sources(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|mts)$/.test(entry.name))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
}

/** Documents of the repository that no package ships: a package README may name them only as links to the repository. */
const REPOSITORY_DOCUMENTS = /\b(?:CONTRIBUTING|TESTING|DESIGN|BENCHMARKS)\.md\b|(?<![\w/])docs\/[\w./-]+\.md\b/g

/** `git+https://github.com/o/r.git` → `https://github.com/o/r`. */
const repositoryUrl = (pkg) =>
  String(pkg.repository?.url ?? '')
    .replace(/^git\+/, '')
    .replace(/\.git$/, '')

/**
 * What is wrong with the links of a published package's README (npm shows it without the repository around it): a
 * relative link must point at a file the package ships (`README.md`, `LICENSE`, `dist/…`) or at a heading; anything else
 * links by absolute URL, and a link into this repository must name a file that exists; a repository document
 * (`CONTRIBUTING.md`, `docs/…`) must not be named bare.
 */
function readmeProblems(root, dir, pkg) {
  const file = join(dir, 'README.md')
  if (!existsSync(file)) return ['has no README.md']
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
  const problems = []
  const repo = repositoryUrl(pkg)
  const links = [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)].map((match) => match[1])
  for (const target of links) {
    if (target.startsWith('#')) continue
    if (/^https?:\/\//.test(target)) {
      const inRepo =
        repo !== '' && target.startsWith(`${repo}/`)
          ? /^(?:blob|tree|raw)\/main\/([^#?]*)/.exec(target.slice(repo.length + 1))
          : null
      if (inRepo && inRepo[1] !== '' && !existsSync(join(root, decodeURIComponent(inRepo[1])))) {
        problems.push(`README.md links ${target}, but the repository has no ${inRepo[1]}`)
      }
      continue
    }
    if (/^[a-z]+:/.test(target)) continue
    const path = target.split('#')[0].replace(/^\.\//, '')
    const ships = path === 'README.md' || path === 'LICENSE' || path.startsWith('dist/')
    if (!ships) {
      problems.push(
        `README.md links ${target}, which the package does not ship; link ${repo || 'the repository'}/blob/main/… instead`,
      )
    }
  }
  // named without a link: what remains once every absolute link is taken out
  const bare = text.replace(/!?\[[^\]]*\]\(https?:\/\/[^)]*\)/g, '')
  for (const match of new Set([...bare.matchAll(REPOSITORY_DOCUMENTS)].map((m) => m[0]))) {
    problems.push(`README.md names ${match}, which the package does not ship; link it in the repository instead`)
  }
  return problems
}

/**
 * Every way the repository at `root` breaks the conventions: one line a problem, naming the file or package. The
 * repository is read as it is on disk (the root `package.json` and `LICENSE`, `packages/`, `plugins/`, `tests/` and
 * `.changeset/`), so a test can point it at a fixture folder.
 */
export function checkPackages(root) {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const license = readFileSync(join(root, 'LICENSE'), 'utf8')
  // The tested range starts at the version the workspace itself is developed and tested with.
  const PEERS = Object.fromEntries(['cordis', 'zod'].map((name) => [name, rootManifest.devDependencies[name]]))

  const problems = []
  const workspaceNames = new Set()
  for (const group of ['packages', 'plugins']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name)
      if (!existsSync(join(dir, 'package.json'))) continue
      const where = relative(root, dir)
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      const fail = (message) => problems.push(`${where} (${pkg.name}): ${message}`)
      workspaceNames.add(pkg.name)

      if (!existsSync(join(dir, 'LICENSE')) || readFileSync(join(dir, 'LICENSE'), 'utf8') !== license) {
        fail('LICENSE must be a copy of the root LICENSE (cp LICENSE ' + where + '/)')
      }
      if (pkg.license !== 'MIT') fail('"license" must be "MIT"')
      if (pkg.private) continue
      for (const field of ['description', 'homepage', 'repository', 'bugs', 'engines'])
        if (!pkg[field]) fail(`"${field}" is missing`)
      if (!Array.isArray(pkg.keywords) || !pkg.keywords.includes('bridle')) fail('"keywords" must include "bridle"')
      if (pkg.repository?.directory !== where) fail(`"repository.directory" must be "${where}"`)
      if (pkg.publishConfig?.access !== 'public') fail('"publishConfig.access" must be "public"')
      for (const problem of readmeProblems(root, dir, pkg)) fail(problem)
      const files = JSON.stringify(pkg.files)
      if (files !== JSON.stringify(['dist', 'README.md', 'LICENSE']))
        fail(`"files" must be ["dist", "README.md", "LICENSE"], not ${files}`)
      const build = 'tsup --config ../../tsup.config.ts'
      // The shared build may be followed by more steps (the CLI bundles its browser viewer after it).
      const script = pkg.scripts?.build ?? ''
      if (script !== build && !script.startsWith(`${build} && `)) {
        fail(
          `"scripts.build" must be "${build}", optionally followed by "&& <more steps>" (the shared build, see CONTRIBUTING.md)`,
        )
      }
      if (existsSync(join(dir, 'tsup.config.ts')))
        fail('has its own tsup.config.ts; the root tsup.config.ts builds every package')
      if (existsSync(join(dir, 'tsconfig.build.json'))) {
        fail('has a tsconfig.build.json; declarations of every package come from scripts/build-types.mjs')
      }

      const code = sources(join(dir, 'src')).join('\n')
      for (const [lib, version] of Object.entries(PEERS)) {
        const imported = new RegExp(`from '${lib}(/[^']*)?'`).test(code)
        if (pkg.dependencies?.[lib])
          fail(`"${lib}" must be a peerDependency (an app shares one copy), not a dependency`)
        if (!imported) continue
        if (pkg.peerDependencies?.[lib] !== `^${version}`)
          fail(`imports ${lib}: "peerDependencies.${lib}" must be "^${version}"`)
        if (pkg.devDependencies?.[lib] !== version)
          fail(`imports ${lib}: "devDependencies.${lib}" must be "${version}"`)
      }
      for (const field of ['dependencies', 'devDependencies']) {
        for (const [dep, spec] of Object.entries(pkg[field] ?? {})) {
          if (dep.startsWith('@bridle/') || dep === 'bridle') {
            if (spec !== 'workspace:^') fail(`"${field}.${dep}" must be "workspace:^"`)
          } else if (!/^(npm:(@[^/]+\/)?[^@]+@)?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(spec)) {
            fail(`"${field}.${dep}" must pin an exact version, not "${spec}"`)
          }
        }
      }
    }
  }

  // A changeset that names a package the workspace does not have makes `changeset status` and the release fail.
  const changesets = join(root, '.changeset')
  for (const file of readdirSync(changesets).filter((name) => name.endsWith('.md') && name !== 'README.md')) {
    const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(changesets, file), 'utf8'))?.[1] ?? ''
    for (const match of front.matchAll(/^\s*(['"]?)([^'":]+)\1\s*:/gm)) {
      const name = match[2]
      if (!workspaceNames.has(name)) problems.push(`.changeset/${file}: "${name}" is not a workspace package`)
    }
  }

  // vitest collects only `*.spec.ts`: a test file under another suffix would never run.
  for (const group of ['packages', 'plugins', 'tests']) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true, recursive: true })) {
      if (
        !entry.isFile() ||
        !/\.test\.(ts|tsx|mts|js|mjs)$/.test(entry.name) ||
        entry.parentPath.includes('node_modules')
      )
        continue
      problems.push(
        `${relative(root, join(entry.parentPath, entry.name))}: test files end in .spec.ts (vitest runs no other)`,
      )
    }
  }
  return problems
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkPackages(fileURLToPath(new URL('..', import.meta.url)))
  if (problems.length > 0) {
    console.error(`package conventions (CONTRIBUTING.md) are not met:\n  ${problems.join('\n  ')}`)
    process.exit(1)
  }
  console.log('package conventions: every package follows CONTRIBUTING.md')
}
