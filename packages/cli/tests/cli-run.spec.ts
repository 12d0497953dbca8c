import { readFileSync, writeFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer, textEvents, type MockServer } from '@bridle/llm-openai/testing'
import { sealLog } from '@bridle/session-jsonl'
import { bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'

const QUESTION = 'What is the package name of this project?'

describe('bridle run (offline, scripted model)', () => {
  let app: string
  let id: string
  let first: Awaited<ReturnType<typeof bridle>>

  beforeAll(async () => {
    app = makeApp(DEMO_YAML)
    first = await bridle(['run', QUESTION], app)
    id = sessionIdOf(first.stderr)
  })

  it('streams the answer and the tool activity, says the model is scripted, and persists the session', () => {
    expect(first.code).toBe(0)
    expect(first.stderr).toContain(
      'bridle: no model configured (set DEEPSEEK_API_KEY, ANTHROPIC_API_KEY or BRIDLE_BASE_URL); using the scripted offline model',
    )
    expect(first.stdout).toContain('→ read_file {"path":"package.json"}')
    expect(first.stdout).toMatch(/^ {2}← read_file: 11 lines, \d+ chars$/m)
    expect(first.stdout).toContain('The package is named `acme-invoice-parser` (from package.json).')
    expect(readdirSync(join(app, 'sessions'))).toContain(`${id}.jsonl`)
  })

  it('lists the session with its model and first prompt', async () => {
    const listed = await bridle(['sessions'], app)
    expect(listed.code).toBe(0)
    expect(listed.stdout.split('\n')[0]).toMatch(
      /^ID\s+CREATED \(UTC\)\s+TURNS\s+LAST ACTIVITY \(UTC\)\s+MODEL\s+FIRST PROMPT$/,
    )
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+1\\s+\\d{4}-\\S+ \\S+\\s+scripted/scripted-demo\\s+${QUESTION.replace('?', '\\?')}$`,
        'm',
      ),
    )
    const json = JSON.parse((await bridle(['sessions', '--json'], app)).stdout)
    expect(json).toEqual([
      expect.objectContaining({ id, turns: 1, model: 'scripted/scripted-demo', firstPrompt: QUESTION }),
    ])
  })

  it('lists sessions newest first', async () => {
    const other = makeApp(DEMO_YAML)
    const ids: string[] = []
    for (const prompt of ['first one', 'second one'])
      ids.push(sessionIdOf((await bridle(['run', prompt], other)).stderr))
    const json = JSON.parse((await bridle(['sessions', '--json'], other)).stdout)
    expect(json.map((row: { id: string; firstPrompt: string }) => [row.id, row.firstPrompt])).toEqual([
      [ids[1], 'second one'],
      [ids[0], 'first one'],
    ])
  })

  it('inspects the session as turns and steps', async () => {
    const out = await bridle(['inspect', id], app)
    expect(out.code).toBe(0)
    expect(out.stdout).toContain(`session ${id}`)
    expect(out.stdout).toMatch(/turn 1 .*completed/)
    expect(out.stdout).toMatch(/step 1 .*tool calls: read_file/)
    expect(out.stdout).toMatch(/step 2 .*answer: The package is named/)
  })

  it("shows what step 2's request contained and verifies every request", async () => {
    const out = await bridle(['inspect', id, '--step', '2', '--verify'], app)
    expect(out.code).toBe(0)
    const text = out.stdout
    expect(text).toMatch(/header\s+reason initial \(seq \d+\) · scripted\/scripted-demo/)
    expect(text).toContain('system sections (4, in order; names from the log)')
    const sections = [...text.matchAll(/^ {2}\d\. ([\w:-]+|\(unnamed\))(?: \(order -?\d+\))?:/gm)].map((m) => m[1])
    expect(sections).toEqual(['harness:identity', 'deployment:persona', 'workspace:paths', 'tool-guidance:read_file'])
    expect(text).toMatch(
      /deployment:persona \(order 0\): You answer questions about the project in \/.*sample-project\./,
    )
    expect(text).toContain('tools (1, in order) read_file')
    expect(text).toMatch(/1\. user · user .*What is the package name/)
    expect(text).toMatch(/2\. user · plugin @bridle\/system-prompt \(snapshot\)/)
    expect(text).toMatch(/3\. assistant · model scripted\/scripted-demo .*\[tool call read_file/)
    expect(text).toMatch(/4\. user · read_file result \(call \S+\)/)
    expect(text).toMatch(/workspace:cwd: cwd: .*sample-project/)
    expect(text).toContain('✓ turn 1 step 1 attempt 1')
    expect(text).toContain('✓ turn 1 step 2 attempt 1')
    expect(text).toContain('verification passed: 2 requests match their digests')
  })

  it('prints the step view as JSON', async () => {
    const out = await bridle(['inspect', id, '--step', '2', '--json'], app)
    const report = JSON.parse(out.stdout)
    expect(report.step).toMatchObject({ turn: 1, step: 2, tools: ['read_file'], header: { reason: 'initial' } })
    expect(report.step.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'user', 'assistant', 'user'])
  })

  it('reports, per request, what of the previous prefix held', async () => {
    const out = await bridle(['inspect', id, '--cache'], app)
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('turn 1 step 1: first request')
    expect(out.stdout).toMatch(/turn 1 step 2: system ✓ · tools ✓ · messages ✓ · prefix kept: 2 messages/)
  })

  it('resumes with --session: turn numbering continues and the header is logged with reason resume', async () => {
    const again = await bridle(['run', '--session', id, 'Anything else?'], app)
    expect(again.code).toBe(0)
    expect(sessionIdOf(again.stderr)).toBe(id)
    expect(again.stdout).toContain('scripted offline model')
    const report = JSON.parse((await bridle(['inspect', id, '--json'], app)).stdout)
    expect(report.turns.map((t: { turn: number }) => t.turn)).toEqual([1, 2])
    const lines = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const reasons = lines.filter((e) => e.type === 'request/header').map((e) => e.data.reason)
    expect(reasons).toEqual(['initial', 'resume'])
    const verified = await bridle(['inspect', id, '--verify'], app)
    expect(verified.code).toBe(0)
  })

  it('names the step and part that no longer match after the stored file is edited', async () => {
    const file = join(app, 'sessions', `${id}.jsonl`)
    const original = readFileSync(file, 'utf8')
    const lines = original.split('\n')
    const index = lines.findIndex((l) => l.includes('"type":"tool/result"'))
    lines[index] = lines[index]!.replace('acme-invoice-parser', 'acme-invoice-parsex')
    try {
      // An edit that leaves the line checksums as they were is refused as corruption, naming the line and the file.
      writeFileSync(file, lines.join('\n'))
      const refused = await bridle(['inspect', id, '--verify'], app)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(
        `bridle: corrupt session log: checksum mismatch in committed event at line ${index + 1} (log: ${file})`,
      )
      // A deliberate edit recomputes them; only the request digests can tell.
      writeFileSync(file, sealLog(lines.join('\n')))
      const out = await bridle(['inspect', id, '--verify'], app)
      expect(out.code).toBe(1)
      expect(out.stdout).toContain('✓ turn 1 step 1 attempt 1')
      expect(out.stdout).toMatch(/✗ turn 1 step 2 attempt 1: .*messages/)
      expect(out.stdout).toContain('verification failed')
    } finally {
      writeFileSync(file, original)
    }
  })

  it('shows a torn tail that a load would discard, in text and JSON, without repairing it', async () => {
    const file = join(app, 'sessions', `${id}.jsonl`)
    const original = readFileSync(file, 'utf8')
    const lineCount = original.split('\n').length - 1
    try {
      writeFileSync(file, original + '{"type":"turn/start","seq":')
      const out = await bridle(['inspect', id], app)
      expect(out.code).toBe(0)
      expect(out.stdout).toContain(
        `torn tail: line ${lineCount + 1} of ${file} past the committed log will be discarded when the session is loaded or resumed (an unterminated 27-byte line)`,
      )
      const report = JSON.parse((await bridle(['inspect', id, '--json'], app)).stdout)
      expect(report.recovery).toEqual({
        location: { kind: 'jsonl', path: file },
        firstLine: lineCount + 1,
        lastLine: lineCount + 1,
        droppedLines: 0,
        droppedEvents: 0,
        fragmentBytes: 27,
      })
      expect(readFileSync(file, 'utf8')).toBe(original + '{"type":"turn/start","seq":') // inspect never repairs
    } finally {
      writeFileSync(file, original)
    }
  })
})

describe('bridle run against an OpenAI-compatible endpoint', () => {
  let server: MockServer | undefined
  afterEach(async () => server?.close())

  it('uses BRIDLE_BASE_URL, prints the streamed text, and sends the Bridle system prompt and tools', async () => {
    server = await startMockServer([{ kind: 'sse', events: textEvents(['Hello ', 'from the mock.']) }])
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['run', 'hello'], app, offlineEnv({ BRIDLE_BASE_URL: server.url, BRIDLE_MODEL: 'mock' }))
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('Hello from the mock.')
    expect(out.stderr).toContain(`bridle: model openai-compatible/mock via ${server.url}`)
    expect(out.stderr).not.toContain('scripted')
    const body = server.requests[0]!.body as {
      messages: { role: string; content: string }[]
      tools: { function: { name: string } }[]
    }
    expect(body.messages[0]).toMatchObject({ role: 'system' })
    expect(body.messages[0]!.content).toContain('You are an AI agent powered by Bridle.')
    expect(body.tools.map((t) => t.function.name)).toEqual(['read_file'])
  })

  it('exits 2 when BRIDLE_MODEL is missing', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['run', 'hello'], app, offlineEnv({ BRIDLE_BASE_URL: 'http://127.0.0.1:9' }))
    expect(out.code).toBe(2)
    expect(out.stderr).toBe('bridle: BRIDLE_MODEL (or -m) must name the model served at BRIDLE_BASE_URL\n')
  })
})

describe('bridle with a bad app config', () => {
  it('names the file, the plugin and the field, and exits 2', async () => {
    const app = makeApp('plugins:\n  - package: "@bridle/plugin-read-file"\n    config:\n      maxBytes: -5\n')
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(/bridle\.yaml: plugin "@bridle\/plugin-read-file": .*maxBytes/)
  })
})

describe('bridle inspect --cache after a model switch', () => {
  it('names the section that changed even when it renders a route variable', async () => {
    const app = makeApp(`plugins:
  - package: "@bridle/plugin-scripted-model"
    config:
      turns: [{ steps: [{ text: "ok" }] }]
  - package: "@bridle/session-jsonl"
    config:
      root: sessions
systemPrompt:
  persona: "You are running on {{model}}."
`)
    const first = await bridle(['run', '-m', 'model-a', 'hello'], app)
    expect(first.code).toBe(0)
    const id = sessionIdOf(first.stderr)
    const again = await bridle(['run', '-s', id, '-m', 'model-b', 'hello again'], app)
    expect(again.code).toBe(0)
    const out = await bridle(['inspect', id, '--cache'], app)
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(
      /turn 2 step 1: system ✗ section deployment:persona changed \(line \d+: "You are running on model-a\." → "You are running on model-b\."\)/,
    )
  })
})
