/**
 * Issue 13, the chapter's check done literally: boot an app from its `bridle.yaml` (the real packages through the
 * built `bridle` CLI, the scripted offline model), run a prompt and record `request/header`; boot it again with the
 * plugin list reversed; the headers are byte-identical. The app's own plugins deliberately share `order` values
 * with each other and with the shipped plugins, and contribute tools through `ctx.tools` and through a tool
 * provider, so only the documented total order (order, then name; tools by name) can make the two runs agree.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bridle, makeApp, sessionIdOf } from '../packages/cli/tests/helpers.js'

const PLUGIN_FILES: Record<string, string> = {
  'house-rules.mjs': `export default {
  name: 'house-rules',
  inject: ['systemPrompt'],
  apply(ctx) {
    ctx.systemPrompt.section({ name: 'house:tone', order: 110, text: 'House rule: answer in one short paragraph.' })
    ctx.systemPrompt.context({ name: 'house:shift', order: 20, text: 'shift: day' })
    ctx.systemPrompt.variable('team', () => 'platform')
  },
}
`,
  'search.mjs': `export default {
  name: 'search',
  inject: ['systemPrompt', 'tools'],
  apply(ctx) {
    ctx.systemPrompt.section({ name: 'guide:search', order: 110, text: 'Search guide: grep first; the {{team}} team owns the index.' })
    ctx.systemPrompt.context({ name: 'search:index', order: 30, text: 'index: fresh' })
    ctx.tools.register({
      name: 'grep',
      description: 'Search the project for a pattern.',
      parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
      execute: () => 'no matches',
    })
  },
}
`,
  'catalog.mjs': `export default {
  name: 'catalog',
  inject: ['systemPrompt'],
  apply(ctx) {
    ctx.systemPrompt.section({ name: 'catalog:notes', order: 50, text: 'Catalog notes: look items up by SKU.' })
    ctx.systemPrompt.tools(() => ({
      schemas: [
        { name: 'catalog_lookup', description: 'Look up a SKU.', parameters: { type: 'object', properties: { sku: { type: 'string' } } } },
        { name: 'Catalog_Export', description: 'Export the catalog.', parameters: { type: 'object' } },
      ],
    }))
  },
}
`,
}

/** The plugin rows, in YAML; `bridle.yaml` lists them in this order and `reversed.yaml` in the opposite one. */
const ROWS = [
  `  - "@bridle/plugin-workspace"`,
  `  - package: "@bridle/plugin-environment"
    config:
      environment: production
      region: eu-west-1`,
  `  - path: ./plugins/house-rules.mjs`,
  `  - package: "@bridle/plugin-scripted-model"
    config:
      turns:
        - steps:
            - toolCalls:
                - name: read_file
                  arguments: { path: package.json }
            - text: "The package is {{tool-result:match:\\"name\\":\\\\s*\\"([^\\"]+)\\"}}."`,
  `  - path: ./plugins/search.mjs`,
  `  - "@bridle/plugin-read-file"`,
  `  - package: "@bridle/session-jsonl"
    config:
      root: sessions`,
  `  - path: ./plugins/catalog.mjs`,
]

const yaml = (rows: string[]) => `plugins:
${rows.join('\n')}
systemPrompt:
  persona: "You answer for the {{team}} team about the project in {{cwd}}."
agent:
  cwd: ./sample-project
`

const apps: string[] = []
afterAll(() => {
  for (const dir of apps) rmSync(dir, { recursive: true, force: true })
})

interface Run {
  /** Each `request/header` event's data, serialized exactly as the log stores it. */
  headers: string[]
  system: string
  tools: string[]
  /** The first request's runtime-context snapshot message text. */
  snapshot: string
}

/** Runs one prompt with the app config `file` and reads back what its session log recorded. */
async function run(app: string, file: string): Promise<Run> {
  const done = await bridle(['run', '-c', file, 'What is the package name?'], app)
  expect(done.code, done.stderr).toBe(0)
  const id = sessionIdOf(done.stderr)
  const lines = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
  const events = lines.map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
  const headers = events.filter((e) => e.type === 'request/header')
  const header = headers[0]!.data.header as { system: string; tools: { name: string }[] }
  const snapshot = events.find(
    (e) => e.type === 'user/message' && JSON.stringify(e.data).includes('Current runtime context.'),
  )
  const content = (snapshot?.data.content as { text: string }[] | undefined) ?? []
  return {
    headers: headers.map((e) => JSON.stringify(e.data)),
    system: header.system,
    tools: header.tools.map((t) => t.name),
    snapshot: content.map((block) => block.text).join(''),
  }
}

describe('issue 13: reversing the plugin list of bridle.yaml changes no byte of request/header', () => {
  it('boots the app, records request/header, boots it reversed: byte-identical headers', async () => {
    const app = makeApp(yaml(ROWS))
    apps.push(app)
    writeFileSync(join(app, 'reversed.yaml'), yaml([...ROWS].reverse()))
    for (const [name, source] of Object.entries(PLUGIN_FILES)) writeFileSync(join(app, 'plugins', name), source)
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: join(app, 'sample-project') })

    const forward = await run(app, 'bridle.yaml')
    const reversed = await run(app, 'reversed.yaml')

    expect(forward.headers.length).toBeGreaterThan(0)
    expect(reversed.headers).toEqual(forward.headers)
    expect(reversed.snapshot).toBe(forward.snapshot)

    // The ties were real, and the documented order settled them: `order`, then name in code-unit order.
    const at = (text: string) => {
      const index = forward.system.indexOf(text)
      expect(index, text).toBeGreaterThanOrEqual(0)
      return index
    }
    expect(at('Catalog notes:')).toBeLessThan(at('Workspace and paths:')) // 50: catalog:notes < workspace:paths
    expect(at('Search guide: grep first; the platform team')).toBeLessThan(at('House rule:')) // 110: guide < house
    expect(at('House rule:')).toBeLessThan(at('Reading files: use the read_file tool.')) // 110: house:tone < tool-guidance:read_file
    expect(forward.tools).toEqual(['Catalog_Export', 'catalog_lookup', 'grep', 'read_file'])
    const ctxAt = (text: string) => {
      const index = forward.snapshot.indexOf(text)
      expect(index, text).toBeGreaterThan(0)
      return index
    }
    expect(ctxAt('shift: day')).toBeLessThan(ctxAt('git: branch main')) // 20: house:shift < workspace:git
    expect(ctxAt('environment: production')).toBeLessThan(ctxAt('index: fresh')) // 30: environment < search:index
  })
})
