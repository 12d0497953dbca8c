import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '@bridle/llm'
import { SessionFormatUnsupportedError, SessionPersistenceCorruptionError, SessionStore, TOOL_OUTCOME_UNKNOWN, type Session } from '@bridle/session'
import { Context } from 'cordis'
import { describe, expect, it, vi } from 'vitest'
import { Config, eventLine, headerLine, SessionJsonl } from '../src/index.js'
import { buildLog } from './fixtures/script.js'
import { captureWarnings, makeApp, replay, scriptedAppends, tempRoot, unsealed } from './helpers.js'

const meta = (id: string) => ({ version: 0 as const, id, createdAt: 1000 })

/** Writes a log file directly: header line, then the given raw lines. */
function writeLog(root: string, id: string, lines: string[], header = headerLine(meta(id))): string {
  mkdirSync(root, { recursive: true })
  const path = join(root, `${id}.jsonl`)
  writeFileSync(path, header + lines.join(''))
  return path
}

const log = buildLog(scriptedAppends(2))
const lines = log.map(eventLine)
const firstTurnEnd = log.findIndex((e) => e.type === 'turn/end')

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a rejection')
}

describe('config', () => {
  it('defaults and strictness', () => {
    expect(Config(undefined)).toEqual({ root: '.bridle/sessions', writeBatchMaxDelayMs: 200, checkpoints: true, extraEventTypes: [] })
    expect(() => Config({ nope: 1 })).toThrow(ConfigError)
    expect(() => Config({ writeBatchMaxDelayMs: 1.5 })).toThrow(/session-jsonl: invalid config: writeBatchMaxDelayMs/)
    expect(() => Config({ writeBatchMaxDelayMs: 0 })).toThrow(ConfigError)
    expect(() => Config({ writeBatchMaxDelayMs: 2_147_483_648 })).toThrow(ConfigError)
    expect(() => Config({ root: '' })).toThrow(/root/)
    expect(SessionJsonl.Config).toBe(Config)
  })

  it('a bad config does not start the plugin', () => {
    const ctx = new Context()
    ctx.plugin(SessionJsonl, { writeBatchMaxDelayMs: -1 } as never)
    expect(ctx.get('sessionPersistence')).toBeUndefined()
  })

  it('resolves a relative root once against process.cwd()', () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(SessionJsonl, { root: 'rel/sessions' })
    expect((ctx.sessionPersistence as SessionJsonl).root).toBe(join(process.cwd(), 'rel/sessions'))
    expect(ctx.sessionPersistence!.locate(meta('a~b') as never)).toEqual({ kind: 'jsonl', path: join(process.cwd(), 'rel/sessions', 'a~007Eb.jsonl') })
    expect(existsSync(join(process.cwd(), 'rel'))).toBe(false)
  })
})


describe('writing live sessions', () => {
  it('is lazy: no file for a session without events, and flushing it writes nothing', async () => {
    const { ctx, root } = makeApp()
    const s = ctx.sessions.create('s1')
    expect(await ctx.sessions.flush(s)).toBe(true)
    expect(existsSync(root)).toBe(false)
  })

  it('publishes header + events on flush and appends later batches', async () => {
    const { ctx, persistence } = makeApp()
    const s = ctx.sessions.create('s1', { meta: { cwd: '/work' } })
    replay(s, scriptedAppends(1).slice(0, 5))
    await ctx.sessions.flush(s)
    const path = persistence.locate(s.header).path
    const header = headerLine({ version: 0, id: 's1', createdAt: s.header.createdAt, cwd: '/work' })
    expect(unsealed(readFileSync(path, 'utf8'))).toBe(header + s.events.map(eventLine).join(''))
    replay(s, scriptedAppends(1).slice(5))
    await ctx.sessions.flush(s)
    expect(unsealed(readFileSync(path, 'utf8'))).toBe(header + s.events.map(eventLine).join(''))
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(persistence.root)).toEqual(['s1.jsonl'])
  })

  it('writes a forked seed at once as the first batch', async () => {
    const { ctx, persistence } = makeApp()
    const parent = ctx.sessions.create('p')
    replay(parent, scriptedAppends(1))
    const child = ctx.sessions.branch(parent, undefined, 'c')
    await ctx.sessions.flush(child)
    const stored = await persistence.inspect('c')
    expect(stored.events).toEqual(child.events)
    const raw = await persistence.readRaw('c')
    expect(raw?.header).toMatchObject({ parentSession: 'p', seedLength: parent.events.length })
  })

  it('vetoes create over an existing log (example 4)', async () => {
    const { ctx, root } = makeApp()
    writeLog(root, 's1', [])
    expect(() => ctx.sessions.create('s1')).toThrow('session "s1" already has a persisted log on disk; load/resume it instead of creating')
    expect(ctx.sessions.get('s1')).toBeUndefined()
  })

  it('warns once per undeclared event type and still writes it; extraEventTypes silences it', async () => {
    const warnings = captureWarnings()
    const { ctx, persistence } = makeApp()
    const s = ctx.sessions.create('s1')
    s.append('plugin/thing', { a: 1 })
    s.append('plugin/thing', { a: 2 })
    await ctx.sessions.flush(s)
    expect(warnings).toEqual([
      'session-jsonl: session "s1" persisted event type "plugin/thing" that is not in KNOWN_SESSION_EVENT_TYPES or extraEventTypes; the log will refuse to load until it is declared',
    ])
    expect(readFileSync(persistence.locate(s.header).path, 'utf8')).toContain('"plugin/thing"')

    const other = makeApp({ extraEventTypes: ['plugin/thing'] })
    const t = other.ctx.sessions.create('t')
    t.append('plugin/thing', {})
    await other.ctx.sessions.flush(t)
    expect(warnings).toHaveLength(1)
  })

  it('retires a disposed session after flushing it', async () => {
    const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 })
    const fork = ctx.plugin({ inject: ['sessions'], apply: (c: Context) => {
      const s = c.sessions.create('s1')
      s.append('turn/start', { turn: 1 })
      s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    } })
    fork.dispose()
    const loaded = await persistence.load('s1')
    expect(loaded.events.map((e) => e.type)).toEqual(['turn/start', 'turn/end'])
  })

  it('disposing the plugin flushes every live session', async () => {
    const root = tempRoot()
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const fork = ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1_000_000 })
    const s = ctx.sessions.create('s1')
    s.append('turn/start', { turn: 1 })
    fork.dispose()
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } }) // after admission stopped: not persisted
    await vi.waitFor(() => expect(existsSync(join(root, 's1.jsonl'))).toBe(true))
    await new Promise((r) => setTimeout(r, 20))
    const text = readFileSync(join(root, 's1.jsonl'), 'utf8')
    expect(text.trim().split('\n').map((l) => JSON.parse(l).type)).toEqual(['session', 'turn/start'])
  })
})

describe('load, inspect and repair', () => {
  it('example 1: keeps the interrupted turn, truncates the fragment, appends closers; resume marks end-seed', async () => {
    const warnings = captureWarnings()
    const { ctx, root, persistence } = makeApp()
    const cut = firstTurnEnd + 1
    // Turn 2 up to its first user message, then a torn chunk.
    const kept = lines.slice(0, cut + 5)
    const path = writeLog(root, 's1', [...kept, '{"type":"assistant/chunk","seq":99,'])
    const inspected = await persistence.inspect('s1')
    const before = readFileSync(path, 'utf8')
    const closers = inspected.events.slice(cut + 5)
    expect(inspected.events.slice(0, cut + 5)).toEqual(log.slice(0, cut + 5))
    expect(closers.map((e) => e.type)).toEqual(['step/end', 'turn/end'])
    expect(closers.at(-1)!.data).toEqual({ turn: 2, reason: { kind: 'interrupted' } })
    expect(readFileSync(path, 'utf8')).toBe(before) // inspect never writes
    const fragment = { location: { kind: 'jsonl', path }, firstLine: cut + 7, lastLine: cut + 7, droppedLines: 0, droppedEvents: 0, fragmentBytes: 35 }
    expect(inspected.recovery).toEqual(fragment)
    expect(warnings).toEqual([])

    const loaded = await persistence.load('s1')
    expect(loaded.events).toEqual(inspected.events)
    expect(loaded.recovery).toEqual(fragment)
    expect(warnings).toEqual([`session-jsonl: session "s1": discarded line ${cut + 7} of "${path}" (a 35-byte unterminated line)`])
    expect(readFileSync(path, 'utf8')).toBe(headerLine(meta('s1')) + loaded.events.map(eventLine).join(''))
    const repaired = readFileSync(path, 'utf8')
    expect((await persistence.load('s1')).recovery).toBeUndefined()
    expect(readFileSync(path, 'utf8')).toBe(repaired) // P8: a second load does not modify
    expect(warnings).toHaveLength(1)

    const session = await persistence.resume('s1')
    expect(ctx.sessions.get('s1')).toBe(session)
    await ctx.sessions.flush(session)
    const after = (await persistence.inspect('s1')).events
    expect(after.at(-1)).toMatchObject({ type: 'session/end-seed', seq: loaded.events.length })
    const stored = readFileSync(path, 'utf8').trim().split('\n')
    expect(stored).toHaveLength(loaded.events.length + 2)
    expect(JSON.parse(stored.at(-1)!)).toMatchObject({ type: 'session/end-seed', seq: loaded.events.length })
  })

  it('P11: resuming again without new events adds no second marker', async () => {
    const root = tempRoot()
    writeLog(root, 's1', lines.slice(0, firstTurnEnd + 1))
    const a = makeApp({}, undefined, root)
    const first = await a.persistence.resume('s1')
    await a.ctx.sessions.flush(first)
    const count = first.events.length
    a.ctx.registry.delete(SessionJsonl)
    const b = makeApp({}, undefined, root)
    const second = await b.persistence.resume('s1')
    await b.ctx.sessions.flush(second)
    expect(second.events).toHaveLength(count)
    const stored = (await b.persistence.inspect('s1')).events
    expect(stored.filter((e) => e.type === 'session/end-seed')).toHaveLength(first.events.filter((e) => e.type === 'session/end-seed').length)
  })

  it('closes a recorded tool call as TOOL_OUTCOME_UNKNOWN', async () => {
    const { root, persistence } = makeApp()
    const callSeq = log.findIndex((e) => e.type === 'tool/call')
    writeLog(root, 's1', lines.slice(0, callSeq + 1))
    const { events } = await persistence.inspect('s1')
    const closer = events[callSeq + 1]!
    expect(closer).toMatchObject({ type: 'tool/result', seq: callSeq + 1, sourceEventSeqs: [callSeq], time: log[callSeq]!.time })
    expect((closer.data as { error: { code: string } }).error.code).toBe(TOOL_OUTCOME_UNKNOWN)
  })

  it('example 2: damage inside the committed region is corruption naming file and line', async () => {
    const { root, persistence } = makeApp()
    const damaged = [...lines]
    damaged[2] = damaged[2]!.slice(0, 10) + '\u0000' + damaged[2]!.slice(11)
    const path = writeLog(root, 's1', damaged)
    // started one at a time: a rejection created before the previous one is awaited would go unhandled
    for (const op of [() => persistence.inspect('s1'), () => persistence.load('s1'), () => persistence.prepare('s1')]) {
      const error = await rejection(op())
      expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
      expect(error.name).toBe('SessionPersistenceCorruptionError')
      expect(error.message).toBe('corrupt session log: unparsable committed event at line 4')
      expect((error as SessionPersistenceCorruptionError).path).toBe(path)
      expect((error as SessionPersistenceCorruptionError).line).toBe(4)
    }
    expect(readFileSync(path, 'utf8')).toBe(headerLine(meta('s1')) + damaged.join('')) // nothing repaired
  })

  it('example 3: the same damage with no later turn/end is a torn tail, reported with the lines and events it drops', async () => {
    const warnings = captureWarnings()
    const { root, persistence } = makeApp()
    const damaged = lines.slice(0, firstTurnEnd) // no turn/end at all
    damaged[2] = '{oops\n'
    const path = writeLog(root, 's1', damaged)
    const report = {
      location: { kind: 'jsonl', path },
      firstLine: 4,
      lastLine: firstTurnEnd + 1,
      droppedLines: firstTurnEnd - 2,
      droppedEvents: firstTurnEnd - 3,
      fragmentBytes: 0,
      defect: { line: 4, reason: 'unparsable line' },
    }
    expect((await persistence.inspect('s1')).recovery).toEqual(report)
    const { events, recovery } = await persistence.load('s1')
    expect(events.slice(0, 2)).toEqual(log.slice(0, 2))
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: { kind: 'interrupted' } } })
    expect(recovery).toEqual(report)
    expect(warnings).toEqual([
      `session-jsonl: session "s1": discarded lines 4–${firstTurnEnd + 1} of "${path}" (${firstTurnEnd - 2} complete lines, starting at damaged line 4 (unparsable line), of which ${firstTurnEnd - 3} were intact events)`,
    ])
  })

  it('header failures', async () => {
    const { root, persistence } = makeApp()
    mkdirSync(root, { recursive: true })
    writeFileSync(join(root, 'a.jsonl'), '')
    writeFileSync(join(root, 'b.jsonl'), '{"type":"session","version":0,"id":"other","createdAt":1}\n')
    writeFileSync(join(root, 'c.jsonl'), '{"version":2,"id":"c"}\n')
    expect((await rejection(persistence.load('a'))).message).toBe('empty or header-less session log')
    const mismatch = await rejection(persistence.inspect('b'))
    expect(mismatch).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(mismatch.message).toBe('stored session identity mismatch: requested "b", header contains "other"')
    const foreign = await rejection(persistence.inspect('c'))
    expect(foreign).toBeInstanceOf(SessionFormatUnsupportedError)
    expect(foreign.message).toBe(
      `session "c" uses log format v2, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${join(root, 'c.jsonl')})`,
    )
    expect((foreign as SessionFormatUnsupportedError).location).toEqual({ kind: 'jsonl', path: join(root, 'c.jsonl') })
    expect((await rejection(persistence.load('missing'))).message).toBe('session "missing" not found')
    expect((await rejection(persistence.inspect('missing'))).message).toBe('session "missing" not found')
  })

  it('validation: legacy vocabulary, unknown types, ignorable, extraEventTypes and shape failures', async () => {
    const { root, persistence } = makeApp()
    const legacy = [eventLine({ type: 'mode/set', seq: 0, time: 1, data: {} })]
    const legacyPath = writeLog(root, 'legacy', legacy)
    const error = await rejection(persistence.load('legacy'))
    expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(error.message).toBe('stored session "legacy" failed validation: Error: session "legacy" contains unsupported legacy mode/set event at seq 0')
    expect((error as SessionPersistenceCorruptionError).path).toBe(legacyPath)

    writeLog(root, 'delta', [eventLine({ type: 'request/header-delta', seq: 0, time: 1, data: {} })])
    expect((await rejection(persistence.load('delta'))).message).toContain('unsupported legacy request/header-delta event at seq 0')
    writeLog(root, 'fallback', [eventLine({ type: 'request/header', seq: 0, time: 1, data: { header: { config: { provider: 'p', model: 'm' } }, reason: 'fallback' } })])
    expect((await rejection(persistence.load('fallback'))).message).toContain('unsupported legacy request/header reason "fallback" at seq 0')

    const unknownPath = writeLog(root, 'unknown', [eventLine({ type: 'future/thing', seq: 0, time: 1, data: {} })])
    const unknown = await rejection(persistence.inspect('unknown'))
    expect(unknown).toBeInstanceOf(SessionFormatUnsupportedError)
    expect(unknown.message).toBe(
      `session "unknown" contains event type "future/thing" (seq 0) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness (raw log: ${unknownPath})`,
    )
    writeLog(root, 'ignorable', [eventLine({ type: 'future/thing', seq: 0, time: 1, data: {}, ignorable: true })])
    expect((await persistence.load('ignorable')).events).toHaveLength(1)
    const declared = makeApp({ extraEventTypes: ['future/thing'] }, undefined, root)
    expect((await declared.persistence.load('unknown')).events).toHaveLength(1)

    writeLog(root, 'shape', [eventLine({ type: 'user/message', seq: 0, time: 1, data: { role: 'user' }, surfaceOp: 'append' })])
    const shape = await rejection(persistence.load('shape'))
    expect(shape).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(shape.message).toMatch(/^stored session "shape" failed validation: Error: .*lacks an identified message/)
  })

  it('load of a live session flushes and snapshots; an open turn is refused', async () => {
    const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 })
    const s = ctx.sessions.create('s1')
    s.append('turn/start', { turn: 1 })
    expect((await rejection(persistence.load('s1'))).message).toBe(
      'cannot load session "s1" while its live turn is open; use the live Session or wait for the turn to close',
    )
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const loaded = await persistence.load('s1')
    expect(loaded.events).toEqual(s.events)
    expect(readFileSync(persistence.locate(s.header).path, 'utf8').trim().split('\n')).toHaveLength(3)
    const inspected = await persistence.inspect('s1')
    expect(inspected.events).toBe(s.events)
    expect(Object.isFrozen(inspected)).toBe(true)
  })
})

describe('prepare and resume', () => {
  it('refuses live ids and a second outstanding preparation; disposing releases', async () => {
    const { ctx, root, persistence } = makeApp()
    writeLog(root, 's1', lines.slice(0, firstTurnEnd + 1))
    const live = ctx.sessions.create('live')
    void live
    expect((await rejection(persistence.prepare('live'))).message).toBe('cannot prepare session "live" while it is live')
    const first = persistence.prepare('s1')
    expect((await rejection(persistence.prepare('s1'))).message).toBe('cannot prepare session "s1" while another preparation is outstanding')
    const prepared = await first
    expect(prepared.session.events.at(-1)?.type).toBe('session/end-seed')
    expect(prepared.session.events).toHaveLength(firstTurnEnd + 2)
    expect((await rejection(persistence.prepare('s1'))).message).toContain('another preparation is outstanding')
    prepared[Symbol.dispose]()
    const again = await persistence.prepare('s1')
    again[Symbol.dispose]()
    // Nothing beyond the stored log was written by preparing.
    expect(readFileSync(join(root, 's1.jsonl'), 'utf8')).toBe(headerLine(meta('s1')) + lines.slice(0, firstTurnEnd + 1).join(''))
  })

  it('a failed announce disposes the preparation and writes nothing beyond the repair', async () => {
    const { ctx, root, persistence } = makeApp()
    const path = writeLog(root, 's1', lines.slice(0, firstTurnEnd + 3))
    ctx.on('session/created', () => {
      throw new Error('veto')
    })
    expect((await rejection(persistence.resume('s1'))).message).toBe('veto')
    expect(ctx.sessions.get('s1')).toBeUndefined()
    await new Promise((r) => setTimeout(r, 20))
    const repaired = (await persistence.inspect('s1')).events
    expect(repaired.at(-1)?.type).toBe('turn/end')
    expect(readFileSync(path, 'utf8')).toBe(headerLine(meta('s1')) + repaired.map(eventLine).join(''))
    // The preparation was released: preparing again works.
    ;(await persistence.prepare('s1'))[Symbol.dispose]()
  })

  it('resume continues appending after the marker with contiguous seqs, and the session is an effect of the caller', async () => {
    const root = tempRoot()
    writeLog(root, 's1', lines.slice(0, firstTurnEnd + 1))
    const { ctx, persistence } = makeApp({}, undefined, root)
    let resumed: Session | undefined
    const fork = ctx.plugin({ inject: ['sessionPersistence'], apply: async (c: Context) => {
      resumed = await (c.sessionPersistence as SessionJsonl).resume('s1')
    } })
    await vi.waitFor(() => expect(resumed).toBeDefined())
    if (resumed === undefined) throw new Error('unreachable')
    resumed.append('turn/start', { turn: 2 })
    resumed.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
    fork.dispose() // detaches the session; retirement flushes it
    expect(ctx.sessions.get('s1')).toBeUndefined()
    const loaded = await persistence.load('s1')
    expect(loaded.events.map((e) => e.seq)).toEqual(loaded.events.map((_, i) => i))
    expect(loaded.events.slice(-3).map((e) => e.type)).toEqual(['session/end-seed', 'turn/start', 'turn/end'])
  })
})

describe('resume/unload race', () => {
  it('a session/created listener that unloads the resuming plugin still detaches the session once the announce unwinds', async () => {
    const root = tempRoot()
    writeLog(root, 's1', lines.slice(0, firstTurnEnd + 1))
    const { ctx, persistence } = makeApp({}, undefined, root)
    const events: string[] = []
    let owner: { dispose(): unknown } | undefined
    ctx.on('session/created', (s) => {
      events.push(`created ${s.id}`)
      owner?.dispose()
    })
    ctx.on('session/disposed', (s) => void events.push(`disposed ${s.id}`))
    let resumed: Promise<Session> | undefined
    ctx.plugin({ inject: ['sessionPersistence'], apply: (c: Context) => {
      owner = c.scope
      resumed = (c.sessionPersistence as SessionJsonl).resume('s1')
    } })
    const session = await resumed!
    expect(events).toEqual(['created s1', 'disposed s1'])
    expect(ctx.sessions.get('s1')).toBeUndefined()
    // the binding was released with the detach: the id can be resumed again
    owner = undefined
    const again = await persistence.resume('s1')
    expect(again).not.toBe(session)
    expect(ctx.sessions.get('s1')).toBe(again)
  })
})

describe('list, listSnapshots, readRaw', () => {
  it('sorts by createdAt then id, skips corrupt headers with a warning and ignores other names', async () => {
    const warnings = captureWarnings()
    const { root, persistence } = makeApp()
    expect(await persistence.list()).toEqual([])
    writeLog(root, 'b', [], headerLine({ version: 0, id: 'b', createdAt: 5 }))
    writeLog(root, 'a', [], headerLine({ version: 0, id: 'a', createdAt: 5 }))
    writeLog(root, 'z', [], headerLine({ version: 0, id: 'z', createdAt: 1 }))
    writeFileSync(join(root, 'bad.jsonl'), 'nope\n')
    writeFileSync(join(root, 'x.jsonl.0123456789ab.tmp'), headerLine(meta('x')))
    writeFileSync(join(root, 'notes.txt'), 'hi')
    expect((await persistence.list()).map((m) => m.id)).toEqual(['z', 'a', 'b'])
    expect(warnings).toEqual([
      `session-jsonl: skipping "${join(root, 'bad.jsonl')}": SessionPersistenceCorruptionError: corrupt session log: header line is not valid JSON`,
    ])
  })

  it('revisions stay stable for unchanged files and change on append and repair', async () => {
    const { ctx, root, persistence } = makeApp()
    writeLog(root, 'old', lines.slice(0, 3))
    const [first] = await persistence.listSnapshots()
    const [again] = await persistence.listSnapshots()
    expect(again!.revision).toBe(first!.revision)
    expect(first!.revision.startsWith(`jsonl:${root}:`)).toBe(true)
    await persistence.load('old')
    const [repaired] = await persistence.listSnapshots()
    expect(repaired!.revision).not.toBe(first!.revision)
    const s = ctx.sessions.create('new')
    s.append('turn/start', { turn: 1 })
    await ctx.sessions.flush(s)
    const before = (await persistence.listSnapshots()).find((x) => x.meta.id === 'new')!.revision
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await ctx.sessions.flush(s)
    const after = (await persistence.listSnapshots()).find((x) => x.meta.id === 'new')!.revision
    expect(after).not.toBe(before)
  })

  it('readRaw returns the exact text, undefined when absent, and rejects a corrupt header', async () => {
    const { root, persistence } = makeApp()
    const text = headerLine(meta('s1')) + lines[0] + '{"frag'
    mkdirSync(root, { recursive: true })
    writeFileSync(join(root, 's1.jsonl'), text)
    expect(await persistence.readRaw('s1')).toEqual({ header: meta('s1'), fileName: 's1.jsonl', content: text })
    expect(await persistence.readRaw('nope')).toBeUndefined()
    writeFileSync(join(root, 'bad.jsonl'), '{\n')
    await expect(persistence.readRaw('bad')).rejects.toBeInstanceOf(SessionPersistenceCorruptionError)
  })

  it('a root that is a file makes every operation reject with the filesystem error', async () => {
    const root = tempRoot()
    mkdirSync(join(root, '..'), { recursive: true })
    writeFileSync(root, 'not a dir')
    const { ctx, persistence } = makeApp({}, undefined, root)
    await expect(persistence.list()).rejects.toMatchObject({ code: 'ENOTDIR' })
    await expect(persistence.load('x')).rejects.toMatchObject({ code: 'ENOTDIR' })
    const s = ctx.sessions.create('x')
    s.append('turn/start', { turn: 1 })
    await expect(ctx.sessions.flush(s)).rejects.toMatchObject({ code: 'EEXIST' })
  })
})
