import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DevSession } from './dev-session.js'
import { DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

/** A plugin module registering one section whose text comes from `importFrom`'s `text` export. */
const sectionPlugin = (name: string, importFrom: string) => `import { text } from '${importFrom}'
export default {
  name: '${name}',
  inject: ['systemPrompt'],
  apply(ctx) {
    ctx.systemPrompt.section({ name: 'dev:${name}', order: 50, text: '${name}: ' + text })
  },
}
`

/** The system strings of the session's request headers, in order. */
function systems(app: string, stderr: string): string[] {
  return readFileSync(join(app, 'sessions', `${sessionIdOf(stderr)}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'request/header')
    .map((event) => event.data.header.system as string)
}

describe('bridle dev follows the module graph', () => {
  let dev: DevSession | undefined
  afterEach(() => void dev?.child.kill())

  it('an edit to an imported module reloads exactly the plugins that import it, and the next request has the new text', async () => {
    const app = makeApp(DEMO_YAML)
    mkdirSync(join(app, 'lib'))
    writeFileSync(join(app, 'lib', 'text.mjs'), "export const text = 'old words'\n")
    writeFileSync(join(app, 'lib', 'other.mjs'), "export const text = 'unrelated'\n")
    writeFileSync(join(app, 'plugins', 'notes.mjs'), sectionPlugin('notes', '../lib/text.mjs'))
    writeFileSync(join(app, 'plugins', 'other.mjs'), sectionPlugin('other', '../lib/other.mjs'))
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    await dev.prompt('first')
    const from = dev.stderr.length
    const reloaded = dev.waitFor(
      /bridle dev: reloaded plugins\/notes\.mjs \(via lib\/text\.mjs; system-prompt\/change ×2\)\n/,
    )
    writeFileSync(join(app, 'lib', 'text.mjs'), "export const text = 'new words'\n")
    await reloaded
    await dev.prompt('second')
    expect(await dev.end()).toBe(0)
    // only the importer reloaded
    expect(dev.stderr.slice(from).match(/reloaded/g)).toHaveLength(1)
    const [first, second] = systems(app, dev.stderr)
    expect(first).toContain('notes: old words')
    expect(second).toContain('notes: new words')
    expect(second).not.toContain('old words')
    expect(second).toContain('other: unrelated')
  })

  it('loads and hot-reloads a TypeScript plugin and its TypeScript imports; errors point at the file, line and column', async () => {
    const app = makeApp(DEMO_YAML)
    mkdirSync(join(app, 'lib'))
    const lib = join(app, 'lib', 'words.ts')
    const plugin = join(app, 'plugins', 'typed.ts')
    writeFileSync(lib, "export const text: string = 'typed v1'\n")
    const typed = (body: string) =>
      `import type { Context } from 'cordis'\nimport { text } from '../lib/words.ts'\ninterface Note { text: string }\n` +
      `const note: Note = { text }\nexport default {\n  name: 'typed',\n  inject: ['systemPrompt'],\n` +
      `  apply(ctx: Context) {\n${body}  },\n}\n`
    writeFileSync(plugin, typed("    ctx.systemPrompt.section({ name: 'dev:typed', order: 50, text: note.text })\n"))
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    expect(dev.stderr).toContain('bridle dev: loaded plugins/typed.ts (system-prompt/change ×1)')
    await dev.prompt('first')

    let next = dev.waitFor(/bridle dev: reloaded plugins\/typed\.ts \(via lib\/words\.ts; system-prompt\/change ×2\)/)
    writeFileSync(lib, "export const text: string = 'typed v2'\n")
    await next
    await dev.prompt('second')

    // a syntax error in the imported TypeScript module: file, line and column, without --verbose
    next = dev.waitFor(/bridle: failed to load plugins\/typed\.ts/)
    writeFileSync(lib, "export const text: string = 'typed v3\n\nexport const broken = {{\n")
    await next
    expect(dev.stderr).toMatch(
      /bridle: failed to load plugins\/typed\.ts \(via lib\/words\.ts\): lib\/words\.ts:\d+:\d+: .+ \(the previous version stays loaded\)\n/,
    )

    // a throw in apply: where in the TypeScript source it was thrown
    next = dev.waitFor(/bridle: failed to load plugins\/typed\.ts: failed to start/)
    writeFileSync(lib, "export const text: string = 'typed v3'\n")
    writeFileSync(plugin, typed("    throw new Error('boom in typed apply')\n"))
    await next
    expect(dev.stderr).toContain(
      'bridle: failed to load plugins/typed.ts: failed to start: boom in typed apply (at plugins/typed.ts:9:11) (the previous version stays loaded)',
    )
    expect(await dev.end()).toBe(0)
    const [first, second] = systems(app, dev.stderr)
    expect(first).toContain('typed v1')
    expect(second).toContain('typed v2')
  })

  it('a syntax error in a JavaScript plugin names its line and column; every path in a line is relative to the app', async () => {
    const app = makeApp(DEMO_YAML)
    writeFileSync(join(app, 'plugins', 'broken.mjs'), "export default {\n  name: 'x',\n  apply(ctx) { ctx..x },\n}\n")
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    expect(dev.stderr).toContain(
      'bridle: failed to load plugins/broken.mjs: plugins/broken.mjs:3:20: Unexpected token (not loaded)\n',
    )
    expect(dev.stderr).not.toContain(app)
    // deleting a plugin file that never loaded unloads nothing, and says so
    const removed = dev.waitFor(/bridle dev: plugins\/broken\.mjs was deleted; it was not loaded, so nothing unloads\n/)
    rmSync(join(app, 'plugins', 'broken.mjs'))
    await removed
    expect(dev.stderr).not.toContain('unloaded plugins/broken.mjs')
    expect(await dev.end()).toBe(0)
  })

  it('a duplicate section name says which plugin file registered it first', async () => {
    const app = makeApp(DEMO_YAML)
    mkdirSync(join(app, 'lib'))
    writeFileSync(join(app, 'lib', 'text.mjs'), "export const text = 'x'\n")
    writeFileSync(join(app, 'plugins', 'a-notes.mjs'), sectionPlugin('notes', '../lib/text.mjs'))
    writeFileSync(join(app, 'plugins', 'b-dup.mjs'), sectionPlugin('notes', '../lib/text.mjs'))
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    expect(dev.stderr).toContain(
      'bridle: failed to load plugins/b-dup.mjs: failed to start: prompt section "dev:notes" is already registered ' +
        "(for a per-agent override, register through that agent's `agent.ctx` instead) (at plugins/b-dup.mjs:6:22) " +
        '(registered first by plugins/a-notes.mjs) (not loaded)\n',
    )
    expect(await dev.end()).toBe(0)
  })

  it('an unknown {{variable}} warning names the plugin file, and the failed turn reports the real code', async () => {
    const app = makeApp(DEMO_YAML)
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    const warned = dev.waitFor(/bridle dev: warning: /)
    writeFileSync(
      join(app, 'plugins', 'note.mjs'),
      "export default { name: 'note', inject: ['systemPrompt'], apply(ctx) { ctx.systemPrompt.section({ name: 'dev:note', order: 50, text: 'Hi {{nobody}}.' }) } }\n",
    )
    await warned
    expect(dev.stderr).toContain(
      'bridle dev: warning: plugins/note.mjs: unknown prompt variable "{{nobody}}" in section "dev:note"; registered variables: provider, model, cwd (the next prompt fails until this is fixed)',
    )
    expect(dev.stderr).not.toMatch(/warning: \S*bridle\.yaml/)
    await dev.prompt('hello')
    expect(dev.stderr).toContain('(UNKNOWN_PROMPT_VARIABLE)')
    expect(dev.stderr).not.toContain('(UNKNOWN)')
    expect(await dev.end()).toBe(1)
  })
})

describe('TypeScript plugin rows in bridle.yaml', () => {
  it('bridle run loads a .ts path: row directly; a syntax error in one names the file, line and column (exit 2)', async () => {
    const { bridle } = await import('./helpers.js')
    const app = makeApp(
      DEMO_YAML.replace('plugins:\n', 'plugins:\n  - path: ./lib/rules.mts\n    config: { rule: typed }\n'),
    )
    mkdirSync(join(app, 'lib'))
    const rules = join(app, 'lib', 'rules.mts')
    writeFileSync(
      rules,
      "import type { Context } from 'cordis'\ninterface Config { rule: string }\nexport default {\n  name: 'rules',\n" +
        "  inject: ['systemPrompt'],\n  apply(ctx: Context, config: Config) {\n" +
        "    ctx.systemPrompt.section({ name: 'house:rules', order: 60, text: `Rule: ${config.rule}.` })\n  },\n}\n",
    )
    const ok = await bridle(['run', 'hi'], app)
    expect(ok.code).toBe(0)
    expect(systems(app, ok.stderr)[0]).toContain('Rule: typed.')

    writeFileSync(rules, 'const x: number = \nexport default {}\n')
    const bad = await bridle(['run', 'hi'], app)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(
      new RegExp(
        `plugin "\\./lib/rules\\.mts": cannot import ${rules.replace(/[.]/g, '\\.')}: ${rules.replace(/[.]/g, '\\.')}:2:\\d+: `,
      ),
    )
  })
})
