/**
 * The JSON depth and size limit at every entry point, with JSONL persistence underneath: a value too deep or too
 * large is refused where it enters (`session.append`, `agent.followup`, a seed, a message constructor) with an error
 * naming the limit and the place, nothing is recorded, and the session keeps saving. Before the limit, a 5,000-deep
 * value was accepted, its batch overflowed the writer's stack on every retry and every later step failed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createUserMessage, JsonLimitError, MAX_JSON_BYTES, MAX_JSON_DEPTH } from '@bridle/llm'
import { SessionJsonl } from '@bridle/session-jsonl'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, callTools, say, tick, user } from '../packages/agent-loop/tests/harness.js'
import { followupFuzz, nested, rawMessage } from './followup-fuzz.js'
import { takeLogLines } from './support/logs.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/** A flat string of `length` copies of `ch` (a repeated string is a rope that costs a copy on every scan). */
const flat = (length: number, ch: string) => Buffer.alloc(length, ch).toString('latin1')

async function persisted() {
  const root = await mkdtemp(join(tmpdir(), 'bridle-json-limits-'))
  const h = boot()
  h.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
  await tick()
  cleanups.push(async () => {
    // Every live session is saved before its folder goes (a background write into a removed folder would warn).
    for (const session of h.ctx.sessions.list()) await h.ctx.sessions.flush(session)
    await rm(root, { recursive: true, force: true })
  })
  return { ...h, root }
}

async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('session.append refuses deep and huge data, records nothing, and keeps saving', () => {
  it(`refuses data nested ${MAX_JSON_DEPTH + 1} levels, naming the limit and the path`, async () => {
    const h = await persisted()
    const session = h.ctx.sessions.create('deep')
    session.append('plugin/ok', { n: 1 })
    const before = session.seq
    const error = await thrown(() => session.append('plugin/deep', { v: nested(MAX_JSON_DEPTH) }))
    expect(error).toBeInstanceOf(JsonLimitError)
    expect((error as JsonLimitError).code).toBe('JSON_TOO_DEEP')
    expect((error as Error).message).toBe(
      `session event "plugin/deep" carries data that nests deeper than the 1000-level JSON limit (at $.v[0][0][0][0][0][0][0]…(990 more)…[0][0])`,
    )
    expect(session.seq).toBe(before)
    session.append('plugin/ok', { n: 2 })
    await h.ctx.sessions.flush(session)
    const lines = (await readFile(join(h.root, 'deep.jsonl'), 'utf8')).trim().split('\n')
    expect(lines.slice(1).map((l) => JSON.parse(l).type)).toEqual(['plugin/ok', 'plugin/ok'])
    expect(takeLogLines()).toEqual([
      expect.stringMatching(/^warn session-jsonl: .*session "deep" persisted event type "plugin\/ok" that is not in/),
    ])
  })

  it('a value exactly at the depth limit is accepted, written and read back', async () => {
    const h = await persisted()
    const session = h.ctx.sessions.create('edge')
    session.append('plugin/edge', nested(MAX_JSON_DEPTH - 1, 'leaf'))
    await h.ctx.sessions.flush(session)
    const loaded = await h.ctx.sessionPersistence!.load('edge')
    expect(JSON.stringify(loaded.events.at(-1)!.data)).toBe(JSON.stringify(nested(MAX_JSON_DEPTH - 1, 'leaf')))
    expect(takeLogLines()).toEqual([
      expect.stringMatching(/^warn session-jsonl: .*session "edge" persisted event type "plugin\/edge" that is not in/),
    ])
  })

  it('refuses 100,000 levels without walking them all, and the session still saves', async () => {
    const h = await persisted()
    const session = h.ctx.sessions.create('very-deep')
    const error = await thrown(() => session.append('plugin/deep', nested(100_000)))
    expect((error as JsonLimitError).code).toBe('JSON_TOO_DEEP')
    expect(session.seq).toBe(0)
    session.append('plugin/ok', {})
    await expect(h.ctx.sessions.flush(session)).resolves.toBe(true)
    expect(takeLogLines()).toEqual([
      expect.stringMatching(
        /^warn session-jsonl: .*session "very-deep" persisted event type "plugin\/ok" that is not in/,
      ),
    ])
  })

  it(`refuses data whose JSON passes ${MAX_JSON_BYTES} bytes, with its size; one byte less is accepted`, async () => {
    const h = boot()
    const session = h.ctx.sessions.create('huge')
    // {"s":"…"} is the string plus 8 bytes.
    const error = await thrown(() => session.append('plugin/huge', { s: flat(MAX_JSON_BYTES - 7, 'x') }))
    expect(error).toBeInstanceOf(JsonLimitError)
    expect((error as JsonLimitError).code).toBe('JSON_TOO_LARGE')
    expect((error as Error).message).toBe(
      'session event "plugin/huge" carries data that is 33554433 bytes as JSON, over the 32 MiB limit (33554432 bytes; passed at $.s)',
    )
    expect((error as JsonLimitError).violation).toEqual({
      kind: 'size',
      path: '$.s',
      limit: MAX_JSON_BYTES,
      bytes: MAX_JSON_BYTES + 1,
    })
    expect(session.seq).toBe(0)
    session.append('plugin/huge', { s: flat(MAX_JSON_BYTES - 8, 'x') })
    expect(session.seq).toBe(1)
  })

  it('counts the JSON escapes: 6 MiB of control characters is 36 MiB of JSON', async () => {
    const session = boot().ctx.sessions.create('escapes')
    const error = await thrown(() => session.append('plugin/escapes', [flat(6 * 1024 * 1024, '\u0001')]))
    expect((error as Error).message).toBe(
      'session event "plugin/escapes" carries data that is 37748740 bytes as JSON, over the 32 MiB limit (33554432 bytes; passed at $[0])',
    )
  })

  it('refuses deep surface metadata the same way', async () => {
    const session = boot().ctx.sessions.create('meta')
    const error = await thrown(() => session.append('plugin/x', {}, { surfaceOp: nested(MAX_JSON_DEPTH + 5) as never }))
    expect((error as Error).message).toMatch(
      /^session event "plugin\/x" carries surface metadata that nests deeper than the 1000-level JSON limit \(at surfaceOp\[0\]/,
    )
    expect(session.seq).toBe(0)
  })
})

describe('agent.followup refuses deep and huge messages, records nothing, and the agent keeps working', () => {
  it('a deep followup throws, leaves the inbox and log untouched, and the next followup runs a saved turn', async () => {
    const h = await persisted()
    const agent = h.agent({ sessionId: 'agent-deep' })
    const before = agent.session.seq
    const error = await thrown(() => agent.followup(rawMessage('deep', nested(5000))))
    expect(error).toBeInstanceOf(JsonLimitError)
    expect((error as Error).message).toMatch(
      /^session event "agent\/inbox\/spliced" carries data that nests deeper than the 1000-level JSON limit \(at \$\.inserted\[0\]\.content\[0\]\.data\[0\]/,
    )
    expect(agent.session.seq).toBe(before)
    expect(agent.inbox.hasPending).toBe(false)
    expect(agent.status).toBe('idle')

    h.script.push(say('fine'))
    agent.followup(user('hello'))
    await agent.whenIdle()
    const types = agent.session.events.map((e) => e.type)
    expect(types).toContain('assistant/message')
    expect(types.at(-1)).toBe('turn/end')
    expect((agent.session.events.at(-1)!.data as { reason: { kind: string } }).reason.kind).toBe('completed')
    await h.ctx.sessions.flush(agent.session)
    await agent.dispose()
    const loaded = await h.ctx.sessionPersistence!.load('agent-deep')
    expect(loaded.events.map((e) => e.type)).toEqual(types)
  })

  it('a huge followup is refused with its size, and nothing is recorded', async () => {
    const h = boot()
    const agent = h.agent()
    const before = agent.session.seq
    const error = await thrown(() => agent.followup(rawMessage('huge', flat(MAX_JSON_BYTES, 'y'))))
    expect((error as JsonLimitError).code).toBe('JSON_TOO_LARGE')
    expect((error as Error).message).toMatch(
      /^session event "agent\/inbox\/spliced" carries data that is \d+ bytes as JSON, over the 32 MiB limit \(33554432 bytes; passed at \$\.inserted\[0\]\.content\[0\]\.data\)$/,
    )
    expect(agent.session.seq).toBe(before)
    expect(agent.inbox.hasPending).toBe(false)
  })
})

describe('a tool result past the limit', () => {
  it('is recorded as an error result the model reads, and the turn completes (before: the turn ended UNKNOWN)', async () => {
    const h = await persisted()
    h.ctx.tools.register({
      name: 'dump',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => flat(MAX_JSON_BYTES, 'd'),
    })
    const agent = h.agent({ sessionId: 'big-tool' })
    h.script.push(callTools({ id: 'c1', name: 'dump' }), say('too big, noted'))
    agent.followup(user('dump it'))
    await agent.whenIdle()
    const result = agent.session.events.find((e) => e.type === 'tool/result')!
    expect((result.data as { error?: unknown }).error).toEqual({ name: 'JsonLimitError', code: 'JSON_TOO_LARGE' })
    const seen = h.requests[1]!.messages.at(-1)!.content[0] as { content: { text: string }[] }
    expect(seen.content[0]!.text).toMatch(
      /^Error: tool "dump" returned a result that is \d+ bytes as JSON, over the 31\.9 MiB limit/,
    )
    expect((agent.session.events.at(-1)!.data as { reason: { kind: string } }).reason.kind).toBe('completed')
    await expect(h.ctx.sessions.flush(agent.session)).resolves.toBe(true)
  })
})

describe('agent.followup under fuzzed input', () => {
  it('a rejected followup changes nothing; an accepted one runs its turn (25 sequences, seeded)', async () => {
    const figures = await followupFuzz(25, 1400)
    expect(figures.sequences).toBe(25)
    expect(figures.turns).toBeGreaterThan(0)
    expect(figures.rejected).toBeGreaterThan(0)
  })
})

describe('seeds and message constructors enforce the same limit', () => {
  it('a seeded session refuses a seed event whose data is too deep', () => {
    const h = boot()
    const seed = [{ type: 'plugin/deep', seq: 0, time: 1, data: { v: nested(MAX_JSON_DEPTH) } }]
    const error = (() => {
      try {
        h.ctx.sessions.create('seeded', { seed })
      } catch (e) {
        return e
      }
    })()
    expect((error as Error).message).toMatch(
      /^seed event at index 0 carries data that nests deeper than the 1000-level JSON limit \(at \$\.data\.v\[0\]/,
    )
    expect(h.ctx.sessions.get('seeded')).toBeUndefined()
  })

  it('createUserMessage refuses a message too deep or too large for the event that records it (TypeError)', () => {
    const deep = () => createUserMessage([{ type: 'text', text: 'x', data: nested(MAX_JSON_DEPTH) } as never])
    expect(deep).toThrow(TypeError)
    expect(deep).toThrow(/^message nests deeper than the 996-level JSON limit \(at \$\.content\[0\]\.data\[0\]/)
    const huge = () => createUserMessage(flat(MAX_JSON_BYTES, 'z'))
    expect(huge).toThrow(
      /^message is \d+ bytes as JSON, over the 31\.9 MiB limit \(33488896 bytes; passed at \$\.content\[0\]\.text\)$/,
    )
    try {
      huge()
    } catch (e) {
      expect((e as Error).cause).toBeInstanceOf(JsonLimitError)
    }
  })
})
