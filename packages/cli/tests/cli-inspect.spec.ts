import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

/** A session written by the CLI before section manifests existed (two turns; the model switched in between). */
const PRE_MANIFEST = fileURLToPath(new URL('./fixtures/pre-manifest', import.meta.url))

describe('inspect: stream chunks and tool lines', () => {
  let app: string
  let id: string

  beforeAll(async () => {
    app = makeApp(DEMO_YAML)
    const run = await bridle(['run', 'What is the package name of this project?'], app)
    expect(run.code).toBe(0)
    id = sessionIdOf(run.stderr)
  })

  it('folds each run of chunks into one line unless --events asks for every event', async () => {
    const folded = await bridle(['inspect', id, '--step', '1'], app)
    expect(folded.code).toBe(0)
    const line = /^ +(\d+)–(\d+) assistant\/chunk ×(\d+) +(.*)$/m.exec(folded.stdout)
    expect(line).not.toBeNull()
    const [, from, to, count, kinds] = line!
    expect(Number(to) - Number(from) + 1).toBe(Number(count))
    expect(kinds).toMatch(/reasoning-delta ×\d+/)
    expect(folded.stdout).not.toMatch(/^ +\d+ assistant\/chunk /m)
    expect(folded.stdout).toContain('events (stream chunks folded; --events lists each)')

    const every = await bridle(['inspect', id, '--step', '1', '--events'], app)
    expect(every.stdout.match(/^ +\d+ assistant\/chunk /gm)).toHaveLength(Number(count))
  })

  it('lists the whole log with --events, and says which tool a result came from', async () => {
    const out = await bridle(['inspect', id, '--events'], app)
    expect(out.code).toBe(0)
    const lines = out.stdout.match(/^ +\d+ \S+/gm) ?? []
    const log = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
    expect(lines).toHaveLength(log.length)
    expect(out.stdout).toMatch(/^ +\d+ tool\/result +read_file: 11 lines, \d+ chars$/m)
    const step = await bridle(['inspect', id, '--step', '2'], app)
    expect(step.stdout).toMatch(/4\. user · read_file result \(call \S+\) \(seq \d+\): 1 \{/)
  })
})

describe('inspect names sections from the log alone', () => {
  it('after the app changed: --step and --cache name sections the current app does not have', async () => {
    const app = makeApp(DEMO_YAML.replace('plugins:\n', 'plugins:\n  - path: ./plugins/house.mjs\n'))
    const plugin = join(app, 'plugins', 'house.mjs')
    const sections = (...entries: [string, number, string][]) =>
      `export default { name: 'house', inject: ['systemPrompt'], apply(ctx) {\n` +
      entries
        .map(
          ([name, order, text]) =>
            `  ctx.systemPrompt.section({ name: '${name}', order: ${order}, text: '${text}' })\n`,
        )
        .join('') +
      '} }\n'
    writeFileSync(plugin, sections(['house:rules', 60, 'Answer briefly.'], ['house:style', 70, 'Use plain words.']))
    const first = await bridle(['run', 'hello'], app)
    expect(first.code).toBe(0)
    const id = sessionIdOf(first.stderr)
    // the plugin changes: one section goes, one is added, one is reworded
    writeFileSync(plugin, sections(['house:style', 70, 'Use short words.'], ['house:tone', 80, 'Be kind.']))
    expect((await bridle(['run', '-s', id, 'hello again'], app)).code).toBe(0)
    // and the app the session is inspected with has no such plugin at all
    writeFileSync(join(app, 'bridle.yaml'), DEMO_YAML)
    rmSync(plugin)

    const cache = await bridle(['inspect', id, '--cache'], app)
    expect(cache.code).toBe(0)
    expect(cache.stdout).toMatch(
      /turn 2 step 1: system ✗ sections house:style changed, house:tone added, house:rules removed \(line \d+: "Answer briefly\." → "Use short words\."\)/,
    )
    const step = await bridle(['inspect', id, '--step', '1.1'], app)
    expect(step.stdout).toContain('system sections (6, in order; names from the log)')
    expect(step.stdout).toMatch(/^ {2}4\. house:rules \(order 60\): Answer briefly\.$/m)
    expect(step.stdout).toMatch(/^ {2}5\. house:style \(order 70\): Use plain words\.$/m)
    const json = JSON.parse((await bridle(['inspect', id, '--cache', '--json'], app)).stdout)
    expect(json.cache[1].system.sections).toEqual([
      { kind: 'changed', name: 'house:style' },
      { kind: 'added', name: 'house:tone' },
      { kind: 'removed', name: 'house:rules' },
    ])
  })
})

describe('a log written before section manifests', () => {
  let app: string
  let id: string

  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'bridle-pre-manifest-'))
    cpSync(PRE_MANIFEST, app, { recursive: true })
    id = readdirSync(join(app, 'sessions'))[0]!.replace(/\.jsonl$/, '')
  })

  it('still verifies every request, and names sections by matching the current app', async () => {
    const out = await bridle(['inspect', id, '--step', '2.1', '--verify'], app)
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    expect(out.stdout).toContain(
      'system sections (3, in order; names matched against the current app: the log records none)',
    )
    expect(out.stdout).toMatch(/^ {2}2\. deployment:persona: You are running on model-b\.$/m)
    expect(out.stdout).toContain('verification passed: 4 requests match their digests')
  })

  it('--cache reports the break by line, in the section the current app renders there', async () => {
    const out = await bridle(['inspect', id, '--cache'], app)
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(
      /turn 2 step 1: system ✗ line 3 \(section deployment:persona\): "You are running on model-a\." → "You are running on model-b\."/,
    )
  })
})
