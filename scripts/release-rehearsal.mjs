#!/usr/bin/env node
// `pnpm release:rehearse`: a release, end to end, on this machine. It versions the packages with changesets in a
// scratch copy of the repository, publishes every package to a real npm registry (verdaccio) listening on loopback,
// then plays a stranger: in a fresh project it installs the packages by name from that registry and runs the README
// "In code" example (only the model swapped for the scripted one), typechecks it under `nodenext` and `bundler`
// resolution, and runs `npx bridle run` offline. Then a plugin author scaffolds a plugin package with `bridle new plugin`,
// builds, tests and publishes it to the same registry, and a fresh app loads it by name from bridle.yaml and verifies its
// session (rehearsal/third-party.mjs). Any failure exits non-zero. Expects `pnpm build` to have run.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { consumerFiles, exampleFromReadme } from './rehearsal/consumer.mjs'
import { startRegistry } from './rehearsal/registry.mjs'
import { rehearseThirdPartyPlugin } from './rehearsal/third-party.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
const started = Date.now()
const work = mkdtempSync(join(tmpdir(), 'bridle-rehearsal-'))
const step = (text) => console.log(`\n[rehearsal ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`)

/** Runs a command asynchronously (the registry serves from this same process), failing with its output. */
function run(command, args, { cwd, env = {}, quiet = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...cleanEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (err += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      if (!quiet) process.stdout.write(indent(out + err))
      if (code === 0) resolve({ out, err })
      else
        reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${code}\n${quiet ? indent(out + err) : ''}`))
    })
  })
}
const indent = (text) => text.replace(/^(?=.)/gm, '    ')

// A stranger's shell: no model keys (the run must be offline) and no workspace-specific npm settings.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !/^(DEEPSEEK_API_KEY|OPENAI_API_KEY|BRIDLE_|npm_|PNPM_|VITEST)/i.test(key),
  ),
)

function check(condition, message) {
  if (!condition) throw new Error(`rehearsal check failed: ${message}`)
}

/** The workspace packages of a checkout: folder, manifest. */
function workspacePackages(root) {
  return ['packages', 'plugins'].flatMap((group) =>
    readdirSync(join(root, group))
      .filter((name) => existsSync(join(root, group, name, 'package.json')))
      .map((name) => ({
        dir: join(root, group, name),
        manifest: JSON.parse(readFileSync(join(root, group, name, 'package.json'), 'utf8')),
      })),
  )
}

let registry
try {
  step('copying the repository (tracked and new files, plus built dist/) into a scratch folder')
  const scratch = join(work, 'repo')
  const { out: listed } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    quiet: true,
  })
  for (const file of listed.split('\0').filter(Boolean)) {
    if (!existsSync(join(repo, file))) continue
    mkdirSync(dirname(join(scratch, file)), { recursive: true })
    cpSync(join(repo, file), join(scratch, file))
  }
  for (const { dir } of workspacePackages(repo)) {
    check(existsSync(join(dir, 'dist')), `${dir}/dist is missing: run pnpm build first`)
    cpSync(join(dir, 'dist'), join(scratch, dir.slice(repo.length), 'dist'), { recursive: true })
  }

  step('pnpm install (offline, from the store) and changeset version: real versions from the pending changesets')
  await run('pnpm', ['install', '--offline', '--frozen-lockfile', '--ignore-scripts'], { cwd: scratch, quiet: true })
  await run('pnpm', ['changeset', 'version'], { cwd: scratch })
  const packages = workspacePackages(scratch).filter(({ manifest }) => !manifest.private)
  for (const { manifest } of packages)
    check(manifest.version !== '0.0.0', `${manifest.name} is still 0.0.0 after changeset version`)

  step('starting verdaccio on loopback')
  registry = await startRegistry(join(work, 'registry'))
  console.log(`    registry ${registry.url} (other packages proxied from ${registry.upstream})`)

  step(`publishing ${packages.length} packages`)
  const npmrc = `registry=${registry.url}\n//${registry.url.replace(/^https?:\/\//, '')}:_authToken=${registry.token}\n`
  writeFileSync(join(scratch, '.npmrc'), npmrc)
  await run('pnpm', ['-r', 'publish', '--no-git-checks', '--registry', registry.url], { cwd: scratch, quiet: true })
  for (const { manifest } of packages) {
    const packument = await registry.packument(manifest.name)
    const published = packument.versions?.[manifest.version]
    check(published !== undefined, `${manifest.name}@${manifest.version} is not on the registry`)
    const ranges = JSON.stringify({ ...published.dependencies, ...published.peerDependencies })
    check(!ranges.includes('workspace:'), `${manifest.name} was published with a workspace: range: ${ranges}`)
    console.log(`    ${manifest.name}@${manifest.version}`)
  }

  step('a fresh consumer project installs Bridle by name from the registry')
  const consumer = join(work, 'consumer')
  mkdirSync(consumer)
  const readme = readFileSync(join(repo, 'README.md'), 'utf8')
  const example = exampleFromReadme(readme)
  for (const [file, text] of Object.entries(consumerFiles(example))) {
    mkdirSync(dirname(join(consumer, file)), { recursive: true })
    writeFileSync(join(consumer, file), text)
  }
  writeFileSync(join(consumer, '.npmrc'), `registry=${registry.url}\n`)
  const names = packages.map(({ manifest }) => manifest.name)
  const peers = packages.find(({ manifest }) => manifest.name === '@bridle/agent-loop').manifest.peerDependencies
  const install = [...names, `cordis@${peers.cordis}`, `zod@${peers.zod}`, 'typescript@5.9.3', '@types/node@20.19.43']
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...install], { cwd: consumer })

  step('the installed packages: one cordis, a LICENSE each, nothing from the monorepo')
  const { out: tree } = await run('npm', ['ls', '--all', '--parseable', 'cordis', '@cordisjs/core'], {
    cwd: consumer,
    quiet: true,
  })
  const copies = tree.split('\n').filter((line) => /node_modules\/(cordis|@cordisjs\/core)$/.test(line))
  check(copies.length === 2, `expected one cordis and one @cordisjs/core, found:\n${copies.join('\n')}`)
  for (const name of names) {
    const dir = join(consumer, 'node_modules', name)
    const files = readdirSync(dir, { recursive: true }).map(String)
    check(files.includes('LICENSE'), `${name} has no LICENSE`)
    const stray = files.filter(
      (file) =>
        /(^|\/)(demo\.js|tests?\/|src\/|tsconfig|.*\.tsbuildinfo$|CHANGELOG)/.test(file) &&
        !file.startsWith('node_modules'),
    )
    check(stray.length === 0, `${name} ships monorepo files: ${stray.join(', ')}`)
  }
  console.log(`    ${names.length} packages, each with LICENSE; one cordis`)

  step('the README "In code" example (scripted model), twice: both print the answer and leave a verifiable log')
  const ids = []
  for (const round of [1, 2]) {
    const { out } = await run('node', ['example.mjs'], { cwd: consumer })
    check(out.includes('bridle-rehearsal-consumer'), `run ${round} did not print the answer (the package name)`)
    const id = /session (\S+): turn 1 ended: completed/.exec(out)?.[1]
    check(id !== undefined, `run ${round} did not report a completed turn`)
    ids.push(id)
  }
  check(ids[0] !== ids[1], `the second run reused session id ${ids[0]}`)
  for (const id of ids) await run('npx', ['bridle', 'inspect', id, '--verify'], { cwd: consumer, quiet: true })
  console.log(`    sessions ${ids.join(', ')} are complete and verify`)

  step('typechecking the TypeScript example under nodenext and bundler resolution')
  for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
    await run('npx', ['tsc', '-p', config], { cwd: consumer })
    console.log(`    ${config}: ok`)
  }

  step('npx bridle run, offline')
  const { out: answer } = await run('npx', ['bridle', 'run', 'What is the package name of this project?'], {
    cwd: consumer,
  })
  check(answer.includes('bridle-rehearsal-consumer'), 'bridle run did not print the package name')

  await rehearseThirdPartyPlugin({ work, consumer, registry, npmrc, run, check, step })

  step(`release rehearsal passed in ${((Date.now() - started) / 1000).toFixed(1)}s`)
} catch (error) {
  console.error(`\nrelease rehearsal FAILED: ${error instanceof Error ? error.message : String(error)}`)
  console.error(`(scratch files kept in ${work})`)
  process.exitCode = 1
} finally {
  await registry?.close()
  if (process.exitCode !== 1) rmSync(work, { recursive: true, force: true })
}
