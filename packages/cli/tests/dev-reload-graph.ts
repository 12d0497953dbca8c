// The model behind the hot-reload property (dev-reload.property.spec.ts and its stress run): a small graph of plugin
// modules, `.mjs` and TypeScript, some imported by two plugins, that random edits change; and the `bridle dev` session
// that must follow it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { expect } from 'vitest'
import { DevSession } from './dev-session.js'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

/** Library modules and what each imports (fixed). */
const LIBS = { 'lib/shared.mjs': [], 'lib/util.ts': ['lib/shared.mjs'], 'lib/solo.ts': [] } as const
type Lib = keyof typeof LIBS
const LIB_NAMES = Object.keys(LIBS) as Lib[]

/** Plugin files, each importing one library (or none); rewiring changes which. */
const PLUGINS = ['plugins/alpha.mjs', 'plugins/beta.ts', 'plugins/gamma.mts', 'plugins/delta.mjs'] as const
type Plugin = (typeof PLUGINS)[number]

export type Edit = { kind: 'bump'; file: Lib | Plugin } | { kind: 'rewire'; plugin: Plugin; to: Lib | null }

export const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('bump' as const), file: fc.constantFrom<Lib | Plugin>(...LIB_NAMES, ...PLUGINS) }),
  fc.record({
    kind: fc.constant('rewire' as const),
    plugin: fc.constantFrom(...PLUGINS),
    to: fc.constantFrom<Lib | null>(...LIB_NAMES, null),
  }),
)

/** The files as they stand: versions and each plugin's import. */
class Graph {
  readonly version = new Map<string, number>([...LIB_NAMES, ...PLUGINS].map((file) => [file, 0]))
  readonly imports = new Map<Plugin, Lib | null>([
    ['plugins/alpha.mjs', 'lib/util.ts'],
    ['plugins/beta.ts', 'lib/shared.mjs'],
    ['plugins/gamma.mts', 'lib/solo.ts'],
    ['plugins/delta.mjs', null],
  ])

  /** The source of `file` now. */
  source(file: Lib | Plugin): string {
    const v = this.version.get(file)!
    const name = file.replace(/^.*\/|\..*$/g, '')
    if (file in LIBS) {
      const deps = LIBS[file as Lib] as readonly string[]
      const from = deps.map((dep, i) => `import { text as dep${i} } from './${dep.slice(4)}'\n`).join('')
      const typed = file.endsWith('.ts') ? ': string' : ''
      const tail = deps.map((_, i) => ` + ' / ' + dep${i}`).join('')
      return `${from}export const text${typed} = '${name} v${v}'${tail}\n`
    }
    const lib = this.imports.get(file as Plugin)
    const from = lib ? `import { text } from '../${lib}'\n` : "const text = 'no import'\n"
    const typed = file.endsWith('ts') ? `import type { Context } from 'cordis'\n` : ''
    const ctx = file.endsWith('ts') ? 'ctx: Context' : 'ctx'
    const tool =
      name === 'beta'
        ? `    ctx.tools.register({ name: 'beta_tool', description: 'beta v${v}: ' + text, parameters: { type: 'object' }, execute: () => 'ok' })\n`
        : ''
    return (
      `${typed}${from}export default {\n  name: '${name}',\n  inject: ['systemPrompt', 'tools'],\n  apply(${ctx}) {\n` +
      `    ctx.systemPrompt.section({ name: 'graph:${name}', order: 50, text: '${name} v${v}: ' + text })\n${tool}  },\n}\n`
    )
  }

  /** The plugins whose module graph contains `file` (before an edit of it). */
  importersOf(file: Lib | Plugin): Plugin[] {
    const reaches = (lib: Lib | null): boolean =>
      lib !== null && (lib === file || (LIBS[lib] as readonly string[]).some((dep) => reaches(dep as Lib)))
    return PLUGINS.filter((plugin) => plugin === file || reaches(this.imports.get(plugin)!)).sort()
  }

  /** Applies `edit` to the model; returns the file written and the plugins expected to reload. */
  apply(edit: Edit): { file: Lib | Plugin; reloads: Plugin[] } {
    const file = edit.kind === 'bump' ? edit.file : edit.plugin
    const reloads = this.importersOf(file)
    if (edit.kind === 'rewire') this.imports.set(edit.plugin, edit.to)
    this.version.set(file, this.version.get(file)! + 1)
    return { file, reloads }
  }
}

/** The last request header's system and tools in a session log: what the plugins assembled. */
function lastAssembled(app: string, id: string): string {
  const events = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))
  const header = events.filter((event) => event.type === 'request/header').at(-1)!.data.header
  return JSON.stringify({ system: header.system, tools: header.tools })
}

/**
 * One run of the property: a fresh app with the graph's files as bridle.yaml rows, `bridle dev` on it, then each edit:
 * write the file, wait for the reloads, check that exactly the importers reloaded, send a prompt, and check that the
 * request equals, byte for byte, the first request of a fresh `bridle run` of the same files.
 */
export async function checkEdits(edits: Edit[]): Promise<void> {
  const graph = new Graph()
  const rows = PLUGINS.map((plugin) => `  - path: ./${plugin}\n`).join('')
  const app = makeApp(DEMO_YAML.replace('plugins:\n', `plugins:\n${rows}`))
  mkdirSync(join(app, 'lib'))
  for (const file of [...LIB_NAMES, ...PLUGINS]) writeFileSync(join(app, file), graph.source(file))
  const dev = new DevSession(app)
  try {
    await dev.waitFor(/one prompt per line/, 0)
    for (const edit of edits) {
      const { file, reloads } = graph.apply(edit)
      const from = dev.stderr.length
      const done = Promise.all(reloads.map((p) => dev.waitFor(new RegExp(`reloaded ${p.replace('.', '\\.')} `), from)))
      writeFileSync(join(app, file), graph.source(file))
      await done
      await dev.prompt(`after ${edit.kind} of ${file}`)
      const since = dev.stderr.slice(from)
      expect(since).not.toMatch(/failed to load|warning/)
      const reloaded = [...since.matchAll(/bridle dev: reloaded (\S+)/g)].map((m) => m[1]).sort()
      expect(reloaded, `after ${JSON.stringify(edit)}`).toEqual(reloads)
      const fresh = await bridle(['run', 'fresh boot'], app)
      expect(fresh.code, fresh.stderr).toBe(0)
      const devId = /^bridle dev: session (\S+)$/m.exec(dev.stderr)![1]!
      expect(lastAssembled(app, devId), `after ${JSON.stringify(edit)}`).toBe(
        lastAssembled(app, sessionIdOf(fresh.stderr)),
      )
    }
    expect(await dev.end()).toBe(0)
  } finally {
    dev.child.kill()
  }
}
