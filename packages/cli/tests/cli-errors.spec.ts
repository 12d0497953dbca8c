import { readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startMockServer, type MockServer } from '@bridle/llm-openai/testing'
import { bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'

const EXAMPLES = fileURLToPath(new URL('../../../examples', import.meta.url))

describe('bridle failure paths', () => {
  let server: MockServer | undefined
  afterEach(async () => server?.close())

  it('exits 1 and names the failure when the model call fails', async () => {
    server = await startMockServer([
      { kind: 'http-error', status: 401, body: { error: { message: 'bad key', type: 'auth' } } },
    ])
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['run', 'hello'], app, offlineEnv({ BRIDLE_BASE_URL: server.url, BRIDLE_MODEL: 'mock' }))
    expect(out.code).toBe(1)
    expect(out.stderr).toMatch(/bridle: the turn failed: .*\(AUTH\)/)
    expect(out.stderr).toMatch(/^bridle: session \S+$/m)
  })

  it('reports an unknown session id', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['inspect', 'no-such-session'], app)
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('session "no-such-session" not found')
  })

  it('refuses a step the session does not have as it refuses a missing session (exit 1), listing the steps it has', async () => {
    const app = makeApp(DEMO_YAML)
    const run = await bridle(['run', 'What is the package name?'], app)
    const id = /^bridle: session (\S+)$/m.exec(run.stderr)![1]!
    const out = await bridle(['inspect', id, '--step', '9'], app)
    expect(out.code).toBe(1)
    expect(out.stderr).toBe(`bridle: session ${id} has no step 9; its steps: turn 1: 1–2 (--step T.S names one)\n`)
    expect(out.stdout).toBe('')
    const second = await bridle(['run', '-s', id, 'hello'], app)
    expect(second.code, second.stderr).toBe(0)
    const inTurn = await bridle(['inspect', id, '--step', '2.2'], app)
    expect(inTurn.code).toBe(1)
    expect(inTurn.stderr).toBe(
      `bridle: session ${id} has no step 2.2; its steps: turn 1: 1–2 · turn 2: 1 (--step T.S names one)\n`,
    )
    const agreeing = await bridle(['inspect', id, '--step', '1.1', '--turn', '1'], app)
    expect(agreeing.stderr).toBe('')
    expect(agreeing.code).toBe(0)
    const conflicting = await bridle(['inspect', id, '--step', '1.1', '--turn', '2'], app)
    expect(conflicting.code).toBe(2)
    expect(conflicting.stderr).toContain('bridle: --step 1.1 names turn 1, but --turn says 2')
    expect(conflicting.stdout).toBe('')
  })
})

describe('bridle with a plugin row that cannot load', () => {
  it('names the file, the plugin and the import error of a local module that does not parse, and exits 2', async () => {
    const app = makeApp('plugins:\n  - path: ./plugins/broken.mjs\n')
    writeFileSync(join(app, 'plugins', 'broken.mjs'), 'export default {{\n')
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(
      /^bridle: \S*bridle\.yaml: plugin "\.\/plugins\/broken\.mjs": cannot import \S*broken\.mjs: .*Unexpected token/m,
    )
  })

  it('names the file for a package that cannot be imported', async () => {
    const app = makeApp('plugins:\n  - "@bridle/no-such-plugin"\n')
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(/^bridle: \S*bridle\.yaml: plugin "@bridle\/no-such-plugin": cannot import the package/m)
  })
})

describe('bridle inspect --step with a section that only renders for the live agent', () => {
  it('names it from the log, which the app cannot do without the live agent', async () => {
    const app = makeApp(`${DEMO_YAML.replace('plugins:\n', 'plugins:\n  - path: ./plugins/live.mjs\n')}`)
    writeFileSync(
      join(app, 'plugins', 'live.mjs'),
      "export default { name: 'live', inject: ['systemPrompt'], apply(ctx) {\n" +
        "  ctx.systemPrompt.section({ name: 'house:live', order: 60, text: (c) => `Log kept: ${c.agent.session.events.length >= 0}.` })\n} }\n",
    )
    const run = await bridle(['run', 'What is the package name?'], app)
    expect(run.code).toBe(0)
    const id = /^bridle: session (\S+)$/m.exec(run.stderr)![1]!
    for (const flags of [
      ['--step', '1'],
      ['--step', '1', '--cache'],
    ]) {
      const out = await bridle(['inspect', id, ...flags], app)
      expect(out.stderr).toBe('')
      expect(out.code).toBe(0)
      expect(out.stdout).toMatch(/^ {2}\d\. house:live \(order 60\): Log kept: true\.$/m)
    }
  })
})

describe('examples/', () => {
  const apps = readdirSync(EXAMPLES).filter((name) => readdirSync(join(EXAMPLES, name)).includes('bridle.yaml'))

  it.each(apps)('examples/%s/bridle.yaml boots, runs a turn offline, and lists it', async (name) => {
    const cwd = makeApp('')
    const config = join(EXAMPLES, name, 'bridle.yaml')
    const run = await bridle(['-c', config, 'run', 'What is the package name of this project?'], cwd)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).not.toMatch(/warning|error/i)
    const out = await bridle(['-c', config, 'sessions', '--json'], cwd)
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    expect(JSON.parse(out.stdout)).toEqual([expect.objectContaining({ id: sessionIdOf(run.stderr) })])
  })
})
