import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'

/** Exactly one stderr line, starting `bridle: `. */
const oneErrorLine = (stderr: string) => {
  const lines = stderr.split('\n').filter((l) => l !== '')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^bridle: /)
  return lines[0]!
}

/** stderr without the line saying the scripted offline model is used (these apps configure no model). */
const withoutModelNotice = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => !l.startsWith('bridle: no model configured'))
    .join('\n')

/** A file that exists but is not a directory. */
const SAMPLE_FILE = fileURLToPath(new URL('../package.json', import.meta.url))

/** No session was written: boot-time errors stop before any model call. */
const noSessions = (app: string) =>
  !existsSync(join(app, 'sessions')) || readdirSync(join(app, 'sessions')).length === 0

describe('commander errors in the bridle grammar', () => {
  it.each([
    [['run'], "bridle: missing required argument 'prompt' (see 'bridle run --help')"],
    [['run', '--bogus', 'x'], "bridle: unknown option '--bogus' (see 'bridle run --help')"],
    [['inspect'], "bridle: missing required argument 'id' (see 'bridle inspect --help')"],
    [['frob'], "bridle: unknown command 'frob' (see 'bridle --help')"],
  ])('bridle %j exits 2 with one prefixed line and a help hint', async (args, line) => {
    const out = await bridle(args, makeApp(DEMO_YAML))
    expect(out.code).toBe(2)
    expect(oneErrorLine(out.stderr)).toBe(line)
    expect(out.stdout).toBe('')
  })

  it('--help exits 0', async () => {
    const out = await bridle(['run', '--help'], makeApp(DEMO_YAML))
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('Usage: bridle run')
  })
})

describe('boot-time validation: one line naming the field, exit 2, before any model call', () => {
  it('-m without a route that serves it', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['run', '-m', 'gpt-4o', 'hi'], app)
    expect(out.code).toBe(2)
    expect(oneErrorLine(out.stderr)).toMatch(
      /^bridle: -m gpt-4o: no model route is configured to serve it; set BRIDLE_BASE_URL/,
    )
    expect(noSessions(app)).toBe(true)
  })

  it('an agent.cwd that does not exist', async () => {
    const app = makeApp(DEMO_YAML.replace('./sample-project', './no-such-dir'))
    for (const command of [['run', 'hi'], ['dev']]) {
      const out = await bridle(command, app)
      expect(out.code).toBe(2)
      expect(oneErrorLine(out.stderr)).toBe(
        `bridle: ${join(app, 'bridle.yaml')}: agent.cwd: no such directory: ${join(app, 'no-such-dir')}`,
      )
    }
    expect(noSessions(app)).toBe(true)
  })

  it('a persona that names an unknown variable, checked by a dry assembly against the registered providers', async () => {
    const app = makeApp(DEMO_YAML.replace('{{cwd}}', '{{workdir}}'))
    for (const command of [['run', 'hi'], ['dev']]) {
      const out = await bridle(command, app)
      expect(out.code).toBe(2)
      expect(out.stderr).toContain(
        `bridle: ${join(app, 'bridle.yaml')}: systemPrompt.persona: unknown prompt variable "{{workdir}}" in section ` +
          '"deployment:persona"; registered variables: provider, model, cwd\n',
      )
    }
    expect(noSessions(app)).toBe(true)
  })

  it("a plugin section's unknown variable names the section", async () => {
    const app = makeApp(DEMO_YAML.replace('plugins:\n', 'plugins:\n  - path: ./plugins/rules.mjs\n'))
    writeFileSync(
      join(app, 'plugins', 'rules.mjs'),
      "export default { name: 'rules', inject: ['systemPrompt'], apply(ctx) { ctx.systemPrompt.section({ name: 'house:rules', order: 5, text: 'Ask {{owner}}.' }) } }\n",
    )
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(
      /bridle: \S+bridle\.yaml: unknown prompt variable "\{\{owner\}\}" in section "house:rules"/,
    )
    expect(noSessions(app)).toBe(true)
  })

  it('a harnessSource that does not exist', async () => {
    const app = makeApp(DEMO_YAML.replace('systemPrompt:\n', 'systemPrompt:\n  harnessSource: ./bridle-src\n'))
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(oneErrorLine(out.stderr)).toBe(
      `bridle: ${join(app, 'bridle.yaml')}: systemPrompt.harnessSource: no such directory: ${join(app, 'bridle-src')}`,
    )

    // once it exists, the harness:source section tells the model where it is, apart from the workspace and cwd
    mkdirSync(join(app, 'bridle-src'))
    const ok = await bridle(['run', 'hi'], app)
    expect(ok.code).toBe(0)
    const step = JSON.parse((await bridle(['inspect', sessionIdOf(ok.stderr), '--step', '1', '--json'], app)).stdout)
    expect(step.step.system[1]).toMatchObject({ name: 'harness:source', order: -90, scope: 'global' })
    expect(step.step.system[1].text).toContain(
      `The source checkout of the harness that runs you (Bridle) is at ${join(app, 'bridle-src')}.`,
    )
  })

  it("a shipped plugin's directory field that does not exist (read-file root, workspace defaultCwd)", async () => {
    const yaml = (rows: string) =>
      DEMO_YAML.replace('  - "@bridle/plugin-workspace"\n  - "@bridle/plugin-read-file"\n', rows)
    const missing = join(tmpdir(), 'bridle-cli-no-such-root')
    const rows = {
      '@bridle/plugin-read-file': 'root',
      '@bridle/plugin-workspace': 'defaultCwd',
    }
    for (const [plugin, field] of Object.entries(rows)) {
      const app = makeApp(yaml(`  - package: "${plugin}"\n    config: { ${field}: ${JSON.stringify(missing)} }\n`))
      for (const command of [['run', 'hi'], ['dev']]) {
        const out = await bridle(command, app)
        expect(out.code).toBe(2)
        expect(oneErrorLine(out.stderr)).toBe(
          `bridle: ${join(app, 'bridle.yaml')}: plugin "${plugin}": ${field}: no such directory: ${missing}`,
        )
      }
      expect(noSessions(app)).toBe(true)
    }
    // a file where a directory belongs is named as such
    const app = makeApp(
      yaml(`  - package: "@bridle/plugin-read-file"\n    config: { root: ${JSON.stringify(SAMPLE_FILE)} }\n`),
    )
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(oneErrorLine(out.stderr)).toBe(
      `bridle: ${join(app, 'bridle.yaml')}: plugin "@bridle/plugin-read-file": root: not a directory: ${SAMPLE_FILE}`,
    )
  })

  it('a resumed session whose cwd is gone: named before any model call, and the log is left as it was', async () => {
    const app = makeApp(DEMO_YAML)
    const first = await bridle(['run', 'hi'], app)
    expect(first.code).toBe(0)
    const id = sessionIdOf(first.stderr)
    const log = join(app, 'sessions', `${id}.jsonl`)
    const before = readFileSync(log, 'utf8')
    // the app now points elsewhere, but the session keeps the folder it was started in
    mkdirSync(join(app, 'elsewhere'))
    writeFileSync(join(app, 'bridle.yaml'), DEMO_YAML.replace('./sample-project', './elsewhere'))
    rmSync(join(app, 'sample-project'), { recursive: true })
    for (const command of [
      ['run', '-s', id, 'again'],
      ['dev', '-s', id],
    ]) {
      const out = await bridle(command, app)
      expect(out.code).toBe(2)
      expect(out.stderr.split('\n').filter(Boolean).at(-1)).toBe(
        `bridle: session ${id}: cwd: no such directory: ${join(app, 'sample-project')} (restore the folder, or start a new session without -s)`,
      )
      expect(out.stdout).toBe('')
    }
    expect(readFileSync(log, 'utf8')).toBe(before)
  })

  it('an environment variable error names the variable, not a bridle.yaml row that does not exist', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['run', 'hi'], app, offlineEnv({ BRIDLE_BASE_URL: 'not-a-url', BRIDLE_MODEL: 'm' }))
    expect(out.code).toBe(2)
    const line = oneErrorLine(out.stderr)
    expect(line).toBe(
      'bridle: BRIDLE_BASE_URL (model route @bridle/llm-openai): llm-openai: invalid config: baseURL: must be an absolute http: or https: URL',
    )
    expect(line).not.toContain('bridle.yaml')
  })
})

describe('a plugin that fails to start', () => {
  const throwing = "export default { name: 'boom', apply() { throw new Error('boom in apply') } }\n"

  it('shows one clean line and no cordis stack dump; --verbose adds the stack', async () => {
    const app = makeApp('plugins:\n  - path: ./plugins/boom.mjs\n')
    writeFileSync(join(app, 'plugins', 'boom.mjs'), throwing)
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(oneErrorLine(withoutModelNotice(out.stderr))).toBe(
      `bridle: ${join(app, 'bridle.yaml')}: plugin "./plugins/boom.mjs" failed to start: boom in apply`,
    )

    const verbose = await bridle(['--verbose', 'run', 'hi'], app)
    expect(verbose.code).toBe(2)
    expect(verbose.stdout).toBe('')
    expect(withoutModelNotice(verbose.stderr)).toMatch(
      /^bridle: .*failed to start: boom in apply\nError: boom in apply\n {4}at Object\.apply \(file:\/\/\S+boom\.mjs:1:\d+\)/,
    )
  })
})

describe('runtime failures exit 1; nothing verified is its own outcome', () => {
  it('a missing session', async () => {
    const app = makeApp(DEMO_YAML)
    const line = 'bridle: session "nope" not found (bridle sessions lists the stored ones)'
    const inspected = await bridle(['inspect', 'nope'], app)
    expect(inspected.code).toBe(1)
    expect(oneErrorLine(inspected.stderr)).toBe(line)
    const resumed = await bridle(['run', '-s', 'nope', 'hi'], app)
    expect(resumed.code).toBe(1)
    // after the line that names the model
    expect(resumed.stderr.split('\n').filter(Boolean).at(-1)).toBe(line)
  })

  it('one request verified reads "1 request matches its digest"; a log with no digest exits 3', async () => {
    const app = makeApp(
      DEMO_YAML.replace(
        'plugins:\n',
        'plugins:\n  - path: ./plugins/gate.mjs\n  - package: "@bridle/plugin-scripted-model"\n    config: { turns: [{ steps: [{ text: "ok" }] }] }\n',
      ),
    )
    // a pre-step policy that blocks the prompt "stop": that turn ends without any request
    writeFileSync(
      join(app, 'plugins', 'gate.mjs'),
      "export default { name: 'gate', apply(ctx) { ctx.on('agent/pre-step', (p, next) =>\n" +
        "  p.messages.some((m) => m.content.some((b) => b.text === 'stop')) ? { kind: 'reject' } : next()) } }\n",
    )
    const first = await bridle(['run', 'hi'], app)
    expect(first.code).toBe(0)
    const id = sessionIdOf(first.stderr)
    const one = await bridle(['inspect', id, '--verify'], app)
    expect(one.code).toBe(0)
    expect(one.stdout).toContain('verification passed: 1 request matches its digest\n')

    const blocked = await bridle(['run', 'stop'], app)
    expect(blocked.code).toBe(1)
    expect(blocked.stderr).toContain('bridle: the turn ended blocked\n')
    const none = await bridle(['inspect', sessionIdOf(blocked.stderr), '--verify'], app)
    expect(none.code).toBe(3)
    expect(none.stdout).toContain('nothing verified: the log records no request digest')
  })
})
