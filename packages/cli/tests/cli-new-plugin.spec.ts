import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { publint } from 'publint'
import { describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

const run = promisify(execFile)
const REPO = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * The packages a scaffolded plugin installs, linked from this workspace instead (tests use no network; the release
 * rehearsal installs them from its registry for real).
 */
const LINKED: Record<string, string> = {
  '@bridle/llm': 'packages/llm',
  '@bridle/system-prompt': 'packages/system-prompt',
  '@bridle/tools': 'packages/tools',
  '@bridle/agent-loop': 'packages/agent-loop',
  '@bridle/session': 'packages/session',
  '@bridle/plugin-scripted-model': 'plugins/scripted-model',
  cordis: 'node_modules/cordis',
  zod: 'node_modules/zod',
  typescript: 'node_modules/typescript',
}

function linkDependencies(dir: string) {
  for (const [name, path] of Object.entries(LINKED)) {
    mkdirSync(join(dir, 'node_modules', name, '..'), { recursive: true })
    symlinkSync(join(REPO, path), join(dir, 'node_modules', name), 'dir')
  }
}

describe('bridle new plugin', () => {
  it('writes a package that builds, passes its tests (scripted model) and publint, and that an app loads by name', async () => {
    const work = mkdtempSync(join(tmpdir(), 'bridle-new-'))
    const out = await bridle(['new', 'plugin', '@acme/bridle-plugin-notes'], work)
    expect(out.code).toBe(0)
    expect(out.stdout).toContain(
      'created @acme/bridle-plugin-notes in bridle-plugin-notes: package.json, tsconfig.json',
    )
    const dir = join(work, 'bridle-plugin-notes')
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual([
      '@bridle/llm',
      '@bridle/system-prompt',
      '@bridle/tools',
      'cordis',
      'zod',
    ])
    expect(manifest.dependencies).toBeUndefined()
    // the README links only to what ships with it or to absolute URLs
    const readme = readFileSync(join(dir, 'README.md'), 'utf8')
    for (const [, target] of readme.matchAll(/\]\(([^)]+)\)/g)) expect(target).toMatch(/^https:\/\//)

    linkDependencies(dir)
    await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir })
    expect(readdirSync(join(dir, 'dist')).sort()).toEqual(['index.d.ts', 'index.js'])
    const tested = await run(process.execPath, ['--test', 'test/plugin.test.mjs'], { cwd: dir })
    // the summary of node:test, as the TAP reporter (Node 20, piped) or the spec reporter (Node 24) writes it
    expect(tested.stdout).toMatch(/(?:#|ℹ) pass 2\n(?:#|ℹ) fail 0/)
    const { messages } = await publint({ pkgDir: dir, strict: true })
    expect(messages).toEqual([])

    // an app loads it by name from its node_modules, with a config row, and the model can call its tool
    const app = makeApp(
      `${DEMO_YAML.replace('plugins:\n', 'plugins:\n  - package: "@acme/bridle-plugin-notes"\n    config: { maxNotes: 2 }\n')}` +
        'scripted:\n  turns:\n    - steps:\n        - toolCalls: [{ name: add_note, arguments: { text: ship it } }]\n' +
        '        - text: "Noted: {{tool-result}}"\n',
    )
    mkdirSync(join(app, 'node_modules', '@acme'), { recursive: true })
    symlinkSync(dir, join(app, 'node_modules', '@acme', 'bridle-plugin-notes'), 'dir')
    const answered = await bridle(['run', 'remember to ship'], app)
    expect(answered.code, answered.stderr).toBe(0)
    expect(answered.stdout).toContain('Noted: noted (1 of 2): ship it')
    const verified = await bridle(['inspect', sessionIdOf(answered.stderr), '--verify'], app)
    expect(verified.code).toBe(0)

    const bad = makeApp(
      DEMO_YAML.replace(
        'plugins:\n',
        'plugins:\n  - package: "@acme/bridle-plugin-notes"\n    config: { maxNotes: 0 }\n',
      ),
    )
    mkdirSync(join(bad, 'node_modules', '@acme'), { recursive: true })
    symlinkSync(dir, join(bad, 'node_modules', '@acme', 'bridle-plugin-notes'), 'dir')
    const refused = await bridle(['run', 'hi'], bad)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      'plugin "@acme/bridle-plugin-notes": @acme/bridle-plugin-notes: invalid config: maxNotes: ',
    )
  })

  it('refuses a name npm would refuse, and a folder that is not empty, writing nothing', async () => {
    const work = mkdtempSync(join(tmpdir(), 'bridle-new-'))
    const bad = await bridle(['new', 'plugin', 'Bad Name'], work)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe(
      'bridle: new plugin "Bad Name": a package name is lower case, optionally scoped (@scope/name), with no spaces\n',
    )
    mkdirSync(join(work, 'taken'))
    writeFileSync(join(work, 'taken', 'x'), '')
    const taken = await bridle(['new', 'plugin', 'taken'], work)
    expect(taken.code).toBe(2)
    expect(taken.stderr).toContain('is not empty; choose another folder with --dir')
    expect(readdirSync(work).sort()).toEqual(['taken'])
    expect((await bridle(['new', 'widget', 'x'], work)).stderr).toBe(
      'bridle: new: unknown kind "widget" (bridle new plugin NAME)\n',
    )
  })
})
