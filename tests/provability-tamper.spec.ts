/**
 * Provability (docs/provability.md), tampering: the chapter's walk-through, persisted with session-jsonl, reloaded in a fresh
 * context, verifies clean; editing one message, the system string or a tool schema in the stored file makes
 * exactly the steps that sent it fail, with the right part named. The edits recompute the line checksums, as a
 * deliberate tamperer would; an edit that does not is refused at load as corruption.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { ReadFile } from '@bridle/plugin-read-file'
import { ScriptedModel } from '@bridle/plugin-scripted-model'
import { SessionPersistenceCorruptionError, SessionStore, verifyDigests, type SessionEvent } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import {
  BACKENDS,
  bootApp,
  closeBackends,
  corePlugins,
  editStoredEvent,
  flipChar,
  messageOf,
  sessionFile,
  tick,
  user,
  type Backend,
} from './provability-support.js'

const ID = 'walk-through'
let workspace: string
let root: string
let path: string
/** The stored file exactly as the run left it. */
let original: string
/** A context with only the store and the backend: a later process holding the file, not the one that wrote it. */
let reader: Context

/**
 * Runs the walk-through once per file, from inside the first test that needs it (not a `beforeAll`): code a hook runs
 * counts as covered by no test, so a mutation run (TESTING.md) would otherwise re-run every test for each mutant in
 * the session code it reaches.
 */
const walkThroughs = new Map<Backend, Promise<Stored>>()
/** What one backend's walk-through left: the module's `let`s above are set from it before each test. */
interface Stored {
  workspace: string
  root: string
  path: string
  original: string
  reader: Context
}
const ready = async (backend: Backend): Promise<void> => {
  if (!walkThroughs.has(backend)) walkThroughs.set(backend, runWalkThrough(backend))
  ;({ workspace, root, path, original, reader } = await walkThroughs.get(backend)!)
}

async function runWalkThrough(backend: Backend): Promise<Stored> {
  workspace = await mkdtemp(join(tmpdir(), 'bridle-prov-ws-'))
  root = await mkdtemp(join(tmpdir(), 'bridle-prov-root-'))
  await writeFile(join(workspace, 'package.json'), JSON.stringify({ name: 'demo-package', version: '1.0.0' }, null, 2))

  const app = await bootApp(
    [
      ...corePlugins(root, { persona: 'You are a careful assistant for the {{cwd}} workspace.' }),
      { name: 'read-file', load: (ctx) => ctx.plugin(ReadFile) },
      // The offline model of `bridle demo`: it answers from what read_file really returned.
      {
        name: 'scripted-model',
        load: (ctx) =>
          ctx.plugin(ScriptedModel, {
            turns: [
              {
                match: 'package name',
                steps: [
                  { toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }] },
                  { text: 'The package name is {{tool-result:match:"name":\\s*"([^"]+)"}}.' },
                ],
              },
              { match: 'dependencies', steps: [{ text: 'It declares no dependencies.' }] },
            ],
          }),
      },
    ],
    backend,
  )
  // over the wire: each of the three requests goes through the Anthropic adapter, answered by the scripted model
  const route =
    backend === 'anthropic' ? { provider: 'mock', model: 'm1' } : { provider: 'scripted', model: 'scripted-demo' }
  for (let i = 0; i < 3 && backend === 'anthropic'; i++) {
    app.script.push((request) => app.ctx.llm.stream({ ...request, provider: 'scripted', model: 'scripted-demo' }))
  }
  const filesRead: string[] = []
  app.ctx.on('tools/result', (exec) => {
    if (exec.name === 'read_file') filesRead.push((exec.arguments as { path: string }).path)
  })
  app.ctx.systemPrompt.context({ name: 'workspace:cwd', order: 0, text: 'cwd: {{cwd}}' })
  app.ctx.systemPrompt.context({
    name: 'workspace:files-read',
    order: 10,
    text: () => `files read: ${filesRead.length ? filesRead.join(', ') : '(none)'}`,
  })
  await tick()

  const agent = app.agent({ sessionId: ID, cwd: workspace, ...route })
  // Turn 1, the chapter's scenario: step 1 reads package.json, step 2 answers from what the tool returned.
  agent.followup(user('What is the package name?'))
  await agent.whenIdle()
  // Turn 2 after a new tool appeared: the header changes, so each turn's steps have their own header record.
  app.ctx.tools.register({
    name: 'list_dir',
    description: 'List the entries of a directory in the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Directory, relative to the workspace.' } },
    },
    execute: () => 'package.json',
  })
  agent.followup(user('Does it have dependencies?'))
  await agent.whenIdle()
  const answers = agent.session.events
    .filter((e) => e.type === 'assistant/message')
    .map((e) => JSON.stringify((e.data as { message: { content: unknown } }).message.content))
  expect(answers).toHaveLength(3)
  expect(answers[0]).toContain('"name":"read_file"')
  expect(answers[1]).toContain('The package name is demo-package.')
  expect(answers[2]).toContain('It declares no dependencies.')
  const toolResult = agent.session.events.find((e) => e.type === 'tool/result')!.data as { error?: unknown }
  expect(toolResult.error).toBeUndefined()
  expect(JSON.stringify(toolResult)).toContain('demo-package')
  // Everything committed reaches the disk before the file is read (the write-behind window is not awaited by dispose).
  expect(await app.ctx.sessions.flush(agent.session)).toBe(true)
  await agent.dispose()

  path = sessionFile(root, ID)
  original = await readFile(path, 'utf8')
  reader = new Context()
  reader.plugin(SessionStore)
  reader.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
  await tick()
  return { workspace, root, path, original, reader }
}

afterAll(async () => {
  for (const done of walkThroughs.values()) {
    const stored = await done.catch(() => undefined)
    if (stored === undefined) continue
    await rm(stored.workspace, { recursive: true, force: true })
    await rm(stored.root, { recursive: true, force: true })
  }
  await closeBackends()
})

/** Verification of the stored file as a later process sees it. */
async function verifyStored(): Promise<{
  events: readonly SessionEvent[]
  failing: { seq: number; mismatched: readonly string[] }[]
}> {
  const { events } = await reader.sessionPersistence!.inspect(ID)
  const results = verifyDigests(events)
  expect(results.length).toBe(3)
  return { events, failing: results.filter((r) => !r.ok).map((r) => ({ seq: r.seq, mismatched: r.mismatched })) }
}

const digestSeqs = (events: readonly SessionEvent[]) =>
  events.filter((e) => e.type === 'request/digest').map((e) => e.seq)

/** Every non-empty string leaf under `value` whose key `accept`s, as [holder, key] pairs. */
function leaves(
  value: unknown,
  accept: string | ((key: string) => boolean),
  out: [any, string][] = [],
): [any, string][] {
  const ok = typeof accept === 'string' ? (k: string) => k === accept : accept
  if (Array.isArray(value)) value.forEach((v) => leaves(v, accept, out))
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && v.length > 0) {
        if (ok(k)) out.push([value, k])
      } else leaves(v, accept, out)
    }
  }
  return out
}

/**
 * The strings of a message an edit may touch without making the log structurally invalid: its text, tool-call
 * arguments and names, its id, and its source's provider and model. Discriminators (`type`, `role`, `kind`) and
 * the call ids linking a result to its call are structure, which loading rightly refuses when damaged.
 */
const editable = (key: string) => !['type', 'role', 'kind', 'toolCallId', 'callId'].includes(key)

describe.each(BACKENDS)('provability: the walk-through log, reloaded and tampered with (model route %s)', (backend) => {
  it('reloaded in a fresh context (inspect and load), every step verifies clean', async () => {
    await ready(backend)
    const inspected = await reader.sessionPersistence!.inspect(ID)
    const loaded = await reader.sessionPersistence!.load(ID)
    expect(loaded.events).toEqual(inspected.events)
    const results = verifyDigests(loaded.events)
    expect(results.map((r) => [`${r.turn}.${r.step}#${r.attempt}`, r.ok, r.mismatched])).toEqual([
      ['1.1#1', true, []],
      ['1.2#1', true, []],
      ['2.1#1', true, []],
    ])
    if (backend === 'anthropic') {
      // the requests went over the wire with a breakpoint placement, recorded and digested
      const digests = loaded.events.filter((e) => e.type === 'request/digest')
      expect(digests.map((e) => typeof (e.data as { cache?: string }).cache)).toEqual(['string', 'string', 'string'])
      expect(loaded.events.filter((e) => e.type === 'request/cache')).toHaveLength(3)
    }
    // The load committed nothing: the file is byte-identical to what the run wrote.
    expect(await readFile(path, 'utf8')).toBe(original)
    expect(
      loaded.events.filter((e) => e.type === 'request/header').map((e) => (e.data as { reason: string }).reason),
    ).toEqual(['initial', 'change'])
  })

  it('editing one character of any string of any message fails that step and every later step that contains it: messages, request', async () => {
    await ready(backend)
    const { events } = await verifyStored()
    const digests = digestSeqs(events)
    const messageEvents = events.filter((e) => ['user/message', 'assistant/message', 'tool/result'].includes(e.type))
    // question, snapshot, tool call, tool result, snapshot, answer, question 2, snapshot (only when changed: none)
    expect(messageEvents.map((e) => e.type)).toEqual([
      'user/message',
      'user/message',
      'assistant/message',
      'tool/result',
      'user/message',
      'assistant/message',
      'user/message',
      'assistant/message',
    ])
    const targets = messageEvents.flatMap((e) =>
      leaves(messageOf(e), editable).map((_, leaf) => ({ seq: e.seq, leaf })),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async ({ seq, leaf }, at) => {
          await writeFile(path, original)
          await editStoredEvent(path, seq, (event) => {
            const [holder, key] = leaves(messageOf(event), editable)[leaf]!
            holder[key] = flipChar(holder[key], Math.floor(at * holder[key].length))
          })
          const { failing } = await verifyStored()
          // Every request dispatched after the message was recorded contains it (no compaction in this run).
          const expected = digests.filter((d) => d > seq).map((d) => ({ seq: d, mismatched: ['messages', 'request'] }))
          expect(failing).toEqual(expected)
        },
      ),
      { numRuns: 60 },
    )
    // The last answer was never sent back: editing it fails nothing.
    await writeFile(path, original)
    await editStoredEvent(path, messageEvents.at(-1)!.seq, (event) => {
      event.data.message.content[0].text = flipChar(event.data.message.content[0].text)
    })
    expect((await verifyStored()).failing).toEqual([])
  })

  it('editing the system string of a request/header fails exactly the steps sent under that header: system, request', async () => {
    await ready(backend)
    await writeFile(path, original)
    const { events } = await verifyStored()
    const digests = digestSeqs(events)
    const headers = events.filter((e) => e.type === 'request/header').map((e) => e.seq)
    expect(headers).toHaveLength(2)
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...headers.keys()),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (index, at) => {
          const seq = headers[index]!
          const until = headers[index + 1] ?? Infinity
          await writeFile(path, original)
          await editStoredEvent(path, seq, (event) => {
            const system: string = event.data.header.system
            event.data.header.system = flipChar(system, Math.floor(at * system.length))
          })
          const { failing } = await verifyStored()
          expect(failing).toEqual(
            digests.filter((d) => d > seq && d < until).map((d) => ({ seq: d, mismatched: ['system', 'request'] })),
          )
          expect(failing.length).toBe(index === 0 ? 2 : 1)
        },
      ),
      { numRuns: 16 },
    )
  })

  it('editing a tool schema in a request/header fails exactly the steps sent under that header: tools, request', async () => {
    await ready(backend)
    await writeFile(path, original)
    const { events } = await verifyStored()
    const digests = digestSeqs(events)
    const headers = events.filter((e) => e.type === 'request/header')
    for (const [index, header] of headers.entries()) {
      const until = headers[index + 1]?.seq ?? Infinity
      const tools = (header.data as { header: { tools?: readonly { name: string }[] } }).header.tools!
      expect(tools.map((t) => t.name)).toEqual(index === 0 ? ['read_file'] : ['list_dir', 'read_file'])
      for (const name of tools.map((t) => t.name)) {
        await writeFile(path, original)
        await editStoredEvent(path, header.seq, (event) => {
          const schema = event.data.header.tools.find((t: { name: string }) => t.name === name)
          const [holder, key] = leaves(schema.parameters, 'description')[0] ?? leaves(schema, 'description')[0]!
          holder[key] = flipChar(holder[key])
        })
        const { failing } = await verifyStored()
        expect(failing).toEqual(
          digests.filter((d) => d > header.seq && d < until).map((d) => ({ seq: d, mismatched: ['tools', 'request'] })),
        )
      }
    }
  })

  it('an edit that does not recompute the line checksums is refused as corruption naming the line', async () => {
    await ready(backend)
    await writeFile(path, original)
    const { events } = await verifyStored()
    const header = events.find((e) => e.type === 'request/header')!
    await editStoredEvent(
      path,
      header.seq,
      (event) => {
        event.data.header.system = flipChar(event.data.header.system, 0)
      },
      { reseal: false },
    )
    const error = await reader.sessionPersistence!.inspect(ID).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(error).toMatchObject({
      message: `corrupt session log: checksum mismatch in committed event at line ${header.seq + 2}`,
      path,
      line: header.seq + 2,
    })
    await writeFile(path, original)
  })

  it('the edited files still load: no corruption is reported, the damage shows only in verification', async () => {
    await ready(backend)
    await writeFile(path, original)
    const { events } = await verifyStored()
    const header = events.find((e) => e.type === 'request/header')!
    await editStoredEvent(path, header.seq, (event) => {
      event.data.header.system = flipChar(event.data.header.system, 0)
    })
    const loaded = await reader.sessionPersistence!.load(ID)
    expect(loaded.events.length).toBe(events.length)
    expect(verifyDigests(loaded.events).map((r) => r.ok)).toEqual([false, false, true])
    await writeFile(path, original)
  })
})
