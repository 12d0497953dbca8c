/**
 * Black-box conformance checks of what is particular to JSONL: plugin exports, file layout and line format, header and
 * scan diagnostics with their exact wording, and the bytes a repair leaves. Only the public entry (and
 * `@bridle/session`) is imported; files are written and read directly on disk. The rules every backend shares run in
 * contract.spec.ts (`@bridle/persistence-conformance`).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '@bridle/llm'
import {
  SessionFormatUnsupportedError,
  SessionPersistenceCorruptionError,
  Session,
  SessionStore,
  interruptedTurnClosers,
} from '@bridle/session'
import { sampleEvents, userMessage } from '@bridle/persistence-conformance'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import DefaultExport, { Config, ConfigSchema, SessionJsonl } from '../src/index.js'
import { makeApp, tempRoot, unsealed } from './helpers.js'
import { takeLogLines } from '../../../tests/support/logs.js'

const line = (value: unknown) => JSON.stringify(value) + '\n'
const header = (id: string, createdAt = 1000) => line({ type: 'session', version: 0, id, createdAt })

function writeRaw(root: string, file: string, text: string): string {
  mkdirSync(root, { recursive: true })
  const path = join(root, file)
  writeFileSync(path, text)
  return path
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a rejection')
}

describe('plugin exports and config', () => {
  it('SessionJsonl is the named and default export; Config is SessionJsonl.Config; inject names sessions', () => {
    expect(DefaultExport).toBe(SessionJsonl)
    expect(SessionJsonl.Config).toBe(Config)
    expect(SessionJsonl.inject).toContain('sessions')
    expect(ConfigSchema.parse({})).toEqual({
      root: '.bridle/sessions',
      writeBatchMaxDelayMs: 200,
      checkpoints: true,
      extraEventTypes: [],
    })
    expect(() => Config({ extraEventTypes: [''] })).toThrow(ConfigError)
    expect(() => Config({ writeBatchMaxDelayMs: 2_147_483_647 })).not.toThrow()
    expect(() => Config({ writeBatchMaxDelayMs: 1 })).not.toThrow()
  })

  it('provides ctx.sessionPersistence as soon as ctx.plugin returns; a bad config does not start it', () => {
    const rejected = new Context()
    rejected.plugin(SessionStore)
    rejected.plugin(SessionJsonl, { root: tempRoot(), surprise: true } as never)
    expect(rejected.get('sessionPersistence')).toBeUndefined()
    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(SessionJsonl, { root: tempRoot() })
    expect(typeof ctx.sessionPersistence?.load).toBe('function')
    expect(ctx.sessionPersistence?.locate({ version: 0, id: 'x', createdAt: 1 } as never).kind).toBe('jsonl')
    expect(takeLogLines()).toEqual([
      'error app: ConfigError: session-jsonl: invalid config: (root): Unrecognized key: "surprise"',
    ])
  })
})

describe('file layout and line format', () => {
  it('stores <root>/<encodeSegment(id)>.jsonl; locate reads and creates nothing', () => {
    const { root, persistence } = makeApp()
    const location = persistence.locate({ version: 0, id: 'a/b~c d', createdAt: 1 } as never)
    expect(location).toEqual({ kind: 'jsonl', path: join(root, 'a~002Fb~007Ec~0020d.jsonl') })
    expect(existsSync(root)).toBe(false)
  })

  it('writes the header fields in order (absent fields omitted, unknown keys dropped) and each event as JSON.stringify, each sealed with its checksum', async () => {
    const { ctx, root } = makeApp()
    const source = ctx.sessions.create('src', { meta: { cwd: '/work' } })
    source.append('turn/start', { turn: 1 })
    source.append('user/message', userMessage('u1', 'hé "q" 🚀') as never, { surfaceOp: 'append' })
    source.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const child = ctx.sessions.branch(source, 2, 'kid/1')
    await ctx.sessions.flush(source)
    await ctx.sessions.flush(child)
    const text = unsealed(readFileSync(join(root, 'kid~002F1.jsonl'), 'utf8'))
    const [first, ...rest] = text.split('\n')
    expect(first).toBe(
      JSON.stringify({
        type: 'session',
        version: 0,
        id: 'kid/1',
        createdAt: child.header.createdAt,
        cwd: '/work',
        parentSession: 'src',
        seedLength: 3,
      }),
    )
    expect(text).toBe(first + '\n' + child.events.map((e) => JSON.stringify(e) + '\n').join(''))
    expect(rest.at(-1)).toBe('')
    expect(text).not.toContain('\r')
    const plain = unsealed(readFileSync(join(root, 'src.jsonl'), 'utf8')).split('\n')[0]
    expect(plain).toBe(
      JSON.stringify({ type: 'session', version: 0, id: 'src', createdAt: source.header.createdAt, cwd: '/work' }),
    )
    expect(readdirSync(root).sort()).toEqual(['kid~002F1.jsonl', 'src.jsonl'])
  })

  it('unknown in-memory header keys are not written', async () => {
    const { ctx, root } = makeApp()
    const seed = [
      { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
      { type: 'turn/end', seq: 1, time: 1, data: { turn: 1, reason: { kind: 'completed' } } },
    ]
    const s = Session.create('h', seed, { version: 0, id: 'h', createdAt: 9, label: 'kept in memory only' })
    expect(s.header).toMatchObject({ label: 'kept in memory only' })
    ctx.sessions.enter(s)
    ctx.sessions.announce(s)
    await ctx.sessions.flush(s)
    expect(unsealed(readFileSync(join(root, 'h.jsonl'), 'utf8'))).toBe(
      '{"type":"session","version":0,"id":"h","createdAt":9}\n' +
        s.events.map((e) => JSON.stringify(e) + '\n').join(''),
    )
  })
})

describe('reading a log: exact diagnostics', () => {
  it('header line failures and foreign versions', async () => {
    const { root, persistence } = makeApp()
    writeRaw(root, 'nl.jsonl', header('nl').slice(0, -1))
    expect((await rejection(persistence.load('nl'))).message).toBe('empty or header-less session log')
    writeRaw(root, 'bad.jsonl', '{"type":"session",\n')
    const bad = await rejection(persistence.inspect('bad'))
    expect(bad).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(bad.message).toBe('corrupt session log: header line is not valid JSON')
    for (const [id, h] of [
      ['negzero', '{"type":"session","version":0,"id":"negzero","createdAt":-0}'],
      ['notype', '{"version":0,"id":"notype","createdAt":1}'],
      ['frac', '{"type":"session","version":0,"id":"frac","createdAt":1.5}'],
      ['cwd', '{"type":"session","version":0,"id":"cwd","createdAt":1,"cwd":"relative"}'],
      ['arr', '[]'],
    ] as const) {
      writeRaw(root, `${id}.jsonl`, h + '\n')
      const error = await rejection(persistence.inspect(id))
      expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
      expect(error.message).toBe('corrupt session log: first line is not a session header')
    }
    const oldPath = writeRaw(root, 'old.jsonl', '{"version":-1,"id":"old"}\n')
    const old = await rejection(persistence.load('old'))
    expect(old).toBeInstanceOf(SessionFormatUnsupportedError)
    expect(old.message).toBe(
      `session "old" uses log format v-1, older than the supported v0, and this build ships no upgrade path for it (raw log: ${oldPath})`,
    )
    const numPath = writeRaw(root, 'num.jsonl', '{"version":3,"id":42}\n')
    const num = await rejection(persistence.inspect('num'))
    expect(num).toBeInstanceOf(SessionFormatUnsupportedError)
    expect(num.message).toBe(
      `session "42" uses log format v3, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${numPath})`,
    )
    expect((num as SessionFormatUnsupportedError).location).toEqual({ kind: 'jsonl', path: numPath })
  })

  it('a seq gap inside the committed region names the line, expected and actual seq; on a turn/end it throws at once', async () => {
    const { root, persistence } = makeApp()
    const events = sampleEvents()
    const gapped = [events[0], { ...events[1]!, seq: 5 }, events[2]].map(line).join('')
    const path = writeRaw(root, 'gap.jsonl', header('gap') + gapped)
    const error = await rejection(persistence.load('gap'))
    expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(error.message).toBe('corrupt session log: seq gap in committed region at line 3 (expected 1, got 5)')
    expect((error as SessionPersistenceCorruptionError).path).toBe(path)
    writeRaw(root, 'end.jsonl', header('end') + [events[0], { ...events[2]!, seq: 4 }].map(line).join(''))
    expect((await rejection(persistence.inspect('end'))).message).toBe(
      'corrupt session log: seq gap in committed region at line 3 (expected 1, got 4)',
    )
  })

  it('structural checks are fatal wherever the line sits, and are wrapped with String(err)', async () => {
    const { root, persistence } = makeApp()
    const events = sampleEvents()
    const tail = { type: 'request/header-delta', seq: 6, time: 1, data: {} }
    writeRaw(root, 'legacy.jsonl', header('legacy') + [...events, tail].map(line).join(''))
    const error = await rejection(persistence.load('legacy'))
    expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(error.message).toBe(
      'stored session "legacy" failed validation: Error: session "legacy" contains unsupported legacy request/header-delta event at seq 6',
    )
    expect((error as SessionPersistenceCorruptionError).cause).toBeInstanceOf(Error)
    const fallback = {
      type: 'request/header',
      seq: 1,
      time: 1,
      data: { header: { config: { provider: 'p', model: 'm' } }, reason: 'fallback' },
    }
    writeRaw(root, 'fb.jsonl', header('fb') + [events[0], fallback].map(line).join(''))
    expect((await rejection(persistence.inspect('fb'))).message).toBe(
      'stored session "fb" failed validation: Error: session "fb" contains unsupported legacy request/header reason "fallback" at seq 1',
    )
  })
})

describe('recovery and API', () => {
  it('inspect computes closers in memory only; load commits them; a second load changes nothing (P8)', async () => {
    const { root, persistence } = makeApp()
    const events = sampleEvents()
    const body = events.map(line).join('') + '{"type":"assistant/chunk","seq":6,'
    const path = writeRaw(root, 's.jsonl', header('s') + body)
    const closers = interruptedTurnClosers(events)
    const inspected = await persistence.inspect('s')
    expect(Object.isFrozen(inspected)).toBe(true)
    expect(inspected.meta).toEqual({ version: 0, id: 's', createdAt: 1000 })
    expect(inspected.events).toEqual([...events, ...closers])
    expect(readFileSync(path, 'utf8')).toBe(header('s') + body)
    const loaded = await persistence.load('s')
    expect(loaded.events).toEqual([...events, ...closers])
    expect(Object.isFrozen(loaded)).toBe(true)
    const repaired = header('s') + [...events, ...closers].map(line).join('')
    expect(readFileSync(path, 'utf8')).toBe(repaired)
    await persistence.load('s')
    expect(readFileSync(path, 'utf8')).toBe(repaired)
  })

  it('list/listSnapshots read headers only; revisions follow the documented shape', async () => {
    const { root, persistence } = makeApp()
    writeRaw(root, 'b.jsonl', header('b', 2) + '{torn')
    writeRaw(root, 'a.jsonl', header('a', 2))
    writeRaw(root, 'c.jsonl', header('c', 1))
    writeRaw(root, 'ignored.json', header('ignored', 0))
    expect((await persistence.list()).map((m) => m.id)).toEqual(['c', 'a', 'b'])
    const snapshots = await persistence.listSnapshots()
    expect(snapshots.map((s) => s.meta.id)).toEqual(['c', 'a', 'b'])
    const size = Buffer.byteLength(header('b', 2) + '{torn')
    const b = snapshots.find((s) => s.meta.id === 'b')!
    expect(b.revision).toMatch(
      new RegExp(`^jsonl:${root.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+:${size}:\\d+:\\d+$`),
    )
  })
})

describe('testable properties', () => {
  it('P5 + P11: the committed bytes are never rewritten; resume continues after one end-seed marker with contiguous seqs', async () => {
    const { ctx, root, persistence } = makeApp()
    const events = sampleEvents()
    const committed = header('s') + events.map(line).join('')
    const path = writeRaw(
      root,
      's.jsonl',
      committed + line({ type: 'assistant/chunk', seq: 9, time: 1, data: {} }) + '{"torn',
    )
    const loaded = await persistence.load('s')
    const repaired = readFileSync(path, 'utf8')
    expect(repaired.startsWith(committed)).toBe(true)
    expect(loaded.events.map((e) => e.seq)).toEqual(loaded.events.map((_, i) => i))
    const session = await persistence.resume('s')
    session.append('turn/start', { turn: 3 })
    session.append('turn/end', { turn: 3, reason: { kind: 'completed' } })
    await ctx.sessions.flush(session)
    const text = readFileSync(path, 'utf8')
    expect(text.startsWith(repaired)).toBe(true)
    const stored = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { type: string; seq: number })
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i))
    expect(stored.slice(loaded.events.length).map((e) => e.type)).toEqual([
      'session/end-seed',
      'turn/start',
      'turn/end',
    ])
    expect(stored.filter((e) => e.type === 'session/end-seed')).toHaveLength(1)
  })
})
