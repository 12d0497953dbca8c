import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '@bridle/llm'
import { SessionFormatUnsupportedError, SessionPersistenceCorruptionError, SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { Config, eventLine, headerLine, SessionJsonl } from '../src/index.js'
import { buildLog } from './fixtures/script.js'
import { captureWarnings, makeApp, replay, scriptedAppends, tempRoot, unsealed } from './helpers.js'
import { takeLogLines } from '../../../tests/support/logs.js'

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
    expect(Config(undefined)).toEqual({
      root: '.bridle/sessions',
      writeBatchMaxDelayMs: 200,
      checkpoints: true,
      extraEventTypes: [],
    })
    expect(() => Config({ nope: 1 } as never)).toThrow(ConfigError)
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
    expect(takeLogLines()).toEqual([
      'error app: ConfigError: session-jsonl: invalid config: writeBatchMaxDelayMs: Too small: expected number to be >=1',
    ])
  })

  it('resolves a relative root once against process.cwd()', () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(SessionJsonl, { root: 'rel/sessions' })
    expect((ctx.sessionPersistence as SessionJsonl).root).toBe(join(process.cwd(), 'rel/sessions'))
    expect(ctx.sessionPersistence!.locate(meta('a~b') as never)).toEqual({
      kind: 'jsonl',
      path: join(process.cwd(), 'rel/sessions', 'a~007Eb.jsonl'),
    })
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

  it('vetoes create over an existing log (example 4)', async () => {
    const { ctx, root } = makeApp()
    writeLog(root, 's1', [])
    expect(() => ctx.sessions.create('s1')).toThrow(
      'session "s1" already has a persisted log on disk; load/resume it instead of creating',
    )
    expect(ctx.sessions.get('s1')).toBeUndefined()
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
    const fragment = {
      location: { kind: 'jsonl', path },
      firstLine: cut + 7,
      lastLine: cut + 7,
      droppedLines: 0,
      droppedEvents: 0,
      fragmentBytes: 35,
    }
    expect(inspected.recovery).toEqual(fragment)
    expect(warnings).toEqual([])

    const loaded = await persistence.load('s1')
    expect(loaded.events).toEqual(inspected.events)
    expect(loaded.recovery).toEqual(fragment)
    expect(warnings).toEqual([
      `session-jsonl: session "s1": discarded line ${cut + 7} of "${path}" (a 35-byte unterminated line)`,
    ])
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
