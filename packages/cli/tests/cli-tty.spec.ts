import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startMockServer, textEvents, type MockServer } from '@bridle/llm-openai/testing'
import { bridle, DEMO_YAML, makeApp, offlineEnv, plainTerminalText, spawnTty, Transcript } from './helpers.js'

const QUESTION = 'What is the package name of this project?'
/** The erase-line sequence the status line is redrawn and removed with. */
const ERASE = '\r\x1b[2K'

describe('bridle run on a terminal', () => {
  let server: MockServer | undefined
  afterEach(async () => server?.close())

  it('shows a status line while a request is in flight and a summary after the turn; a pipe gets neither', async () => {
    const app = makeApp(DEMO_YAML)
    const tty = new Transcript(spawnTty(['run', QUESTION], app))
    expect(await tty.closed).toBe(0)
    const raw = tty.text
    // drawn in place: erase, spinner, model, step, what it waits for, elapsed seconds
    expect(raw).toMatch(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] scripted\/scripted-demo · step 1 · waiting for the model · \d+\.\ds/)
    expect(raw).toMatch(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] scripted\/scripted-demo · step 1 · running read_file · \d+\.\ds/)
    expect(raw).toMatch(/step 2 · waiting for the model/)
    const text = plainTerminalText(raw)
    expect(text).toMatch(/^── 2 steps · 1 tool call · tokens not reported · \d+\.\ds$/m)
    expect(text).toContain('The package is named `acme-invoice-parser` (from package.json).')

    const piped = await bridle(['run', QUESTION], app)
    expect(piped.code).toBe(0)
    expect(piped.stdout).not.toContain(ERASE)
    expect(piped.stdout).not.toMatch(/waiting for the model|──|steps ·/)
    expect(piped.stderr).not.toMatch(/waiting for the model|──|steps ·/)
  })

  it('sums the usage the provider reported: tokens in, cached and out', async () => {
    const usage = {
      prompt_tokens: 1200,
      completion_tokens: 34,
      total_tokens: 1234,
      prompt_cache_hit_tokens: 1000,
      prompt_cache_miss_tokens: 200,
    }
    server = await startMockServer([{ kind: 'sse', events: textEvents(['Hello ', 'there.'], { usage }) }])
    const app = makeApp(DEMO_YAML)
    const tty = new Transcript(
      spawnTty(['run', 'hello'], app, offlineEnv({ BRIDLE_BASE_URL: server.url, BRIDLE_MODEL: 'mock' })),
    )
    expect(await tty.closed).toBe(0)
    const text = plainTerminalText(tty.text)
    expect(text).toMatch(/^── 1 step · 0 tool calls · tokens 1200 in \/ 1000 cached \/ 34 out · \d+\.\ds$/m)
    expect(tty.text).toMatch(/openai-compatible\/mock · step 1 · waiting for the model/)
  })
})

describe('bridle dev on a terminal', () => {
  let tty: Transcript | undefined
  afterEach(() => void tty?.child.kill())

  it('shows an input prompt, answers a line typed at it, and ends on Ctrl-D', async () => {
    const app = makeApp(DEMO_YAML)
    tty = new Transcript(spawnTty(['dev'], app))
    await tty.waitFor(/bridle› /, 0)
    expect(plainTerminalText(tty.text)).toContain('one prompt per line, end with Ctrl-D')
    // the prompt comes back once the turn is done (in the same terminal write as the summary, or a later one)
    const answered = tty.waitFor(/── 2 steps · 1 tool call[\s\S]*bridle› /)
    tty.child.stdin.write(`${QUESTION}\r`)
    await answered
    tty.child.stdin.write('\x04')
    expect(await tty.closed).toBe(0)
    const text = plainTerminalText(tty.text)
    expect(text).toContain('The package is named `acme-invoice-parser` (from package.json).')
    expect(text).toMatch(/^bridle: session \S+$/m)
  })
})

/** A scripted model that streams one word a second: a turn long enough to interrupt. */
const SLOW_YAML = DEMO_YAML.replace(
  'plugins:\n',
  'plugins:\n  - package: "@bridle/plugin-scripted-model"\n' +
    '    config:\n      delayMs: 1000\n      turns:\n' +
    '        - { match: "count", steps: [{ text: "one two three four five six seven eight nine ten eleven twelve" }] }\n' +
    '        - { match: "again", steps: [{ text: "Again." }] }\n',
)

/** The `turn/end` reasons of a stored session. */
const turnEnds = (app: string, id: string) =>
  readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as { type: string; data: { reason?: unknown } })
    .filter((event) => event.type === 'turn/end')
    .map((event) => event.data.reason)

describe('Ctrl-C while a turn runs', () => {
  let tty: Transcript | undefined
  afterEach(() => void tty?.child.kill())

  it('run: cancels the turn, which ends aborted; the session is flushed and its id printed', async () => {
    const app = makeApp(SLOW_YAML)
    tty = new Transcript(spawnTty(['run', 'count'], app))
    await tty.waitFor(/one two/, 0)
    tty.child.stdin.write('\x03')
    expect(await tty.closed).toBe(1)
    const text = plainTerminalText(tty.text)
    expect(text).toContain('bridle: the turn ended aborted (cancelled with Ctrl-C)\n')
    expect(text).not.toContain('twelve')
    const id = /^bridle: session (\S+)$/m.exec(text)?.[1]
    expect(id).toBeDefined()
    expect(turnEnds(app, id!)).toEqual([{ kind: 'aborted', reason: { kind: 'user' } }])
  })

  it('dev: cancels the running turn and comes back to the prompt, which takes the next line', async () => {
    const app = makeApp(SLOW_YAML)
    tty = new Transcript(spawnTty(['dev'], app))
    await tty.waitFor(/bridle› /, 0)
    tty.child.stdin.write('count\r')
    await tty.waitFor(/one two/)
    const back = tty.waitFor(/the turn ended aborted \(cancelled with Ctrl-C\)[\s\S]*bridle› /)
    tty.child.stdin.write('\x03')
    await back
    const answered = tty.waitFor(/A\s*g\s*a\s*i\s*n\s*\./)
    tty.child.stdin.write('again\r')
    await answered
    await tty.waitFor(/bridle› /)
    tty.child.stdin.write('\x04')
    expect(await tty.closed).toBe(0)
    const id = /^bridle: session (\S+)$/m.exec(plainTerminalText(tty.text))?.[1]
    expect(turnEnds(app, id!)).toEqual([{ kind: 'aborted', reason: { kind: 'user' } }, { kind: 'completed' }])
  })
})

describe('bridle dev on a terminal: typed ahead', () => {
  let tty: Transcript | undefined
  afterEach(() => void tty?.child.kill())

  it('a line typed while the app still boots is answered once the prompt comes; Ctrl-D with no prompt stores nothing', async () => {
    const app = makeApp(DEMO_YAML)
    tty = new Transcript(spawnTty(['dev'], app))
    // typed before dev has printed anything: the terminal holds it until the prompt reads it
    tty.child.stdin.write(`${QUESTION}\r`)
    await tty.waitFor(/── 2 steps · 1 tool call[\s\S]*bridle› /, 0)
    tty.child.stdin.write('\x04')
    expect(await tty.closed).toBe(0)
    expect(plainTerminalText(tty.text)).toContain('The package is named `acme-invoice-parser` (from package.json).')

    tty = new Transcript(spawnTty(['dev'], app))
    await tty.waitFor(/bridle› /, 0)
    tty.child.stdin.write('\x04')
    expect(await tty.closed).toBe(0)
    const text = plainTerminalText(tty.text)
    expect(text).toContain('bridle dev: no prompt ran, so no session was stored')
    expect(text).not.toMatch(/^bridle: session /m)
  })
})
