import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DevSession } from './dev-session.js'
import { BIN, bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'

const pluginSource = (text: string) => `export default {
  name: 'dev-note',
  inject: ['systemPrompt'],
  apply(ctx) {
    ctx.systemPrompt.section({ name: 'dev:note', order: 50, text: ${JSON.stringify(text)} })
  },
}
`

const toolPluginSource = `export default {
  name: 'dev-tool',
  inject: ['systemPrompt', 'tools'],
  apply(ctx) {
    ctx.systemPrompt.section({ name: 'dev:tool-guide', order: 50, text: 'Use echo_back to repeat text.' })
    ctx.tools.register({ name: 'echo_back', description: 'Repeat text.', parameters: { type: 'object' }, execute: () => 'ok' })
  },
}
`

describe('bridle dev', () => {
  let dev: DevSession | undefined
  afterEach(() => void dev?.child.kill())

  it('hot-reloads an edited plugin: the next request has the new section and not the old one; edits that fail to import or to start keep the previous version', async () => {
    const app = makeApp(DEMO_YAML)
    const file = join(app, 'plugins', 'note.mjs')
    writeFileSync(file, pluginSource('Note: version one.'))
    writeFileSync(join(app, 'plugins', 'tool.mjs'), toolPluginSource)
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    expect(dev.stderr).toContain('bridle dev: loaded plugins/note.mjs (system-prompt/change ×1)')
    // a ctx.tools registration changes what the model sees, so the counter includes it: one section + one tool
    expect(dev.stderr).toContain('bridle dev: loaded plugins/tool.mjs (system-prompt/change ×2)')

    await dev.prompt('first question')

    const reloaded = dev.waitFor(/bridle dev: reloaded plugins\/note\.mjs \(system-prompt\/change ×2\)/)
    writeFileSync(file, pluginSource('Note: version two.'))
    await reloaded
    await dev.prompt('second question')

    const failed = dev.waitFor(/bridle: failed to load plugins\/note\.mjs: .* \(the previous version stays loaded\)/)
    writeFileSync(file, 'export default {{ this is not javascript')
    await failed
    await dev.prompt('third question')

    const restored = dev.waitFor(/bridle: failed to load plugins\/note\.mjs: .*boom in apply/)
    writeFileSync(file, "export default { name: 'dev-note', apply() { throw new Error('boom in apply') } }\n")
    await restored
    await dev.prompt('fourth question')

    const unloaded = dev.waitFor(/bridle dev: unloaded plugins\/tool\.mjs \(system-prompt\/change ×2\)/)
    rmSync(join(app, 'plugins', 'tool.mjs'))
    await unloaded

    expect(await dev.end()).toBe(0)
    const id = sessionIdOf(dev.stderr)
    const events = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l))
    const headers = events
      .filter((e) => e.type === 'request/header')
      .map((e) => ({ reason: e.data.reason, system: e.data.header.system as string }))
    expect(headers.map((h) => h.reason)).toEqual(['initial', 'change'])
    expect(headers[0]!.system).toContain('Note: version one.')
    expect(
      events.find((e) => e.type === 'request/header').data.header.tools.map((t: { name: string }) => t.name),
    ).toContain('echo_back')
    expect(headers[1]!.system).toContain('Note: version two.')
    expect(headers[1]!.system).not.toContain('version one')
    // the third and fourth requests logged no header: the broken edits changed nothing the model sees
    expect(events.filter((e) => e.type === 'request/digest')).toHaveLength(4)
  })
})

describe('bridle dev with a plugin file that never loaded', () => {
  let dev: DevSession | undefined
  afterEach(() => void dev?.child.kill())

  it('does not claim a previous version stays loaded when there is none', async () => {
    const app = makeApp(DEMO_YAML)
    writeFileSync(join(app, 'plugins', 'broken.mjs'), 'export default {{ this is not javascript')
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    expect(dev.stderr).toMatch(/bridle: failed to load plugins\/broken\.mjs: .* \(not loaded\)\n/)
    expect(dev.stderr).not.toContain('the previous version stays loaded')
    expect(await dev.end()).toBe(0)
  })
})

describe('bridle dev with bridle.yaml rows', () => {
  let dev: DevSession | undefined
  afterEach(() => void dev?.child.kill())

  it("loads a path: row inside the watched folder once, through the watcher, with the row's config; reloads it; says so", async () => {
    // the CLI README's own example: a house-rules plugin listed in bridle.yaml and living in plugins/
    const app = makeApp(
      DEMO_YAML.replace(
        'plugins:\n',
        'plugins:\n  - path: ./plugins/house-rules.mjs\n    config: { rule: "Answer in one line." }\n',
      ),
    )
    const file = join(app, 'plugins', 'house-rules.mjs')
    const rules = (suffix: string) =>
      `export default { name: 'house-rules', inject: ['systemPrompt'], apply(ctx, config) {\n` +
      `  ctx.systemPrompt.section({ name: 'house:rules', order: 60, text: config.rule + ${JSON.stringify(suffix)} })\n} }\n`
    writeFileSync(file, rules(' (v1)'))
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    expect(dev.stderr).toContain(
      "bridle dev: plugins/house-rules.mjs is a bridle.yaml row inside the watched folder: the watcher loads it (with the row's config) and hot-reloads it; boot does not load it again",
    )
    expect(dev.stderr.match(/loaded plugins\/house-rules\.mjs/g)).toHaveLength(1)
    await dev.prompt('first')
    const reloaded = dev.waitFor(/bridle dev: reloaded plugins\/house-rules\.mjs \(system-prompt\/change ×2\)/)
    writeFileSync(file, rules(' (v2)'))
    await reloaded
    await dev.prompt('second')
    expect(await dev.end()).toBe(0)
    expect(dev.stderr).not.toMatch(/already registered|failed/)
    const id = sessionIdOf(dev.stderr)
    const events = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l))
    const systems = events.filter((e) => e.type === 'request/header').map((e) => e.data.header.system as string)
    expect(systems).toHaveLength(2)
    expect(systems[0]).toContain('Answer in one line. (v1)')
    expect(systems[1]).toContain('Answer in one line. (v2)')
    expect(systems[1]).not.toContain('(v1)')
  })

  it('refuses two rows for the same watched file before loading anything (exit 2, one line)', async () => {
    const rows =
      '  - path: ./plugins/rules.mjs\n    config: { rule: a }\n  - path: plugins/rules.mjs\n    config: { rule: b }\n'
    const app = makeApp(DEMO_YAML.replace('plugins:\n', `plugins:\n${rows}`))
    writeFileSync(join(app, 'plugins', 'rules.mjs'), "export default { name: 'rules', apply() {} }\n")
    const out = await bridle(['dev'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toBe(
      `bridle: ${join(app, 'bridle.yaml')}: plugin "plugins/rules.mjs": the watched file plugins/rules.mjs is already the row ` +
        '"./plugins/rules.mjs"; bridle dev loads a watched file once, so keep one row\n',
    )
  })

  it('names the rows that do not hot-reload and warns about a watch folder that does not exist', async () => {
    const app = makeApp(DEMO_YAML.replace('plugins:\n', 'plugins:\n  - path: ./lib/fixed.mjs\n'))
    mkdirSync(join(app, 'lib'))
    writeFileSync(join(app, 'lib', 'fixed.mjs'), "export default { name: 'fixed', apply() {} }\n")
    dev = new DevSession(app, ['-w', 'nope'])
    await dev.waitFor(/one prompt per line/, 0)
    expect(dev.stderr).toContain(
      'bridle dev: warning: the watch folder nope does not exist; nothing hot-reloads (create it and restart)',
    )
    expect(dev.stderr).toContain(
      'bridle dev: these bridle.yaml rows load once and do not hot-reload (only .js/.mjs/.ts/.mts files directly in nope/ do): ./lib/fixed.mjs; restart bridle dev after editing them',
    )
    expect(await dev.end()).toBe(0)
  })

  it('warns when a watched plugin breaks the prompt, instead of failing at the next model call', async () => {
    const app = makeApp(DEMO_YAML)
    dev = new DevSession(app)
    await dev.waitFor(/one prompt per line/, 0)
    const warned = dev.waitFor(/bridle dev: warning: .*unknown prompt variable "\{\{nobody\}\}" in section "dev:note"/)
    writeFileSync(join(app, 'plugins', 'note.mjs'), pluginSource('Hello {{nobody}}.'))
    await warned
    expect(await dev.end()).toBe(0)
  })
})

describe('main(["dev", …]) in-process', () => {
  it('stops watching the plugin folder when the session cannot be opened', async () => {
    const app = makeApp(DEMO_YAML)
    const index = join(BIN, '..', 'index.js')
    const script =
      `const { main } = await import(${JSON.stringify(index)})\n` +
      `const io = { out: () => {}, err: (t) => process.stderr.write(t), color: false }\n` +
      `const code = await main(['dev', '-s', 'no-such-session'], io)\n` +
      // closed handles leave the list once libuv has run their close callbacks, a loop turn later
      `for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))\n` +
      `console.log(JSON.stringify({ code, resources: process.getActiveResourcesInfo() }))\n` +
      `process.exit(0)\n`
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
      env: offlineEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    await new Promise((resolve) => child.on('close', resolve))
    expect(stderr).toContain('session "no-such-session" not found')
    const { code, resources } = JSON.parse(stdout) as { code: number; resources: string[] }
    expect(code).toBe(1)
    // chokidar watches with fs.watch, whose handle is an FSEventWrap
    expect(resources).not.toContain('FSEventWrap')
  })
})
