/**
 * Integrity you can see: every line of a log written now carries a CRC-32 chain checksum, so damage in the
 * committed region is a named corruption error (file, line); what a read discards past it is reported; logs written
 * before checksums still load and keep their format.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { SessionFormatUnsupportedError, SessionPersistenceCorruptionError } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { sealLog } from '../src/index.js'
import { completeLines } from './crash/run-child.js'
import { flipProbe } from './crash/flip-probe.js'
import { captureWarnings, makeApp, replay, scriptedAppends, unsealed } from './helpers.js'

const here = new URL('.', import.meta.url).pathname
const legacyFixture = join(here, 'fixtures', 'legacy-v0.jsonl')

async function rejection(promise: Promise<unknown>): Promise<SessionPersistenceCorruptionError> {
  try {
    await promise
  } catch (error) {
    return error as SessionPersistenceCorruptionError
  }
  throw new Error('expected a rejection')
}

/** Writes a sealed log of `turns` complete turns plus `open` appends of an open turn through the real writer. */
async function sealedLog(turns: number, open: number): Promise<{ root: string; path: string; text: string }> {
  const { ctx, persistence, root } = makeApp({ writeBatchMaxDelayMs: 1_000_000 })
  const s = ctx.sessions.create('s1', { meta: { cwd: '/work' } })
  const script = scriptedAppends(turns + 1)
  const lastStart = script.findLastIndex((a) => a.type === 'turn/start')
  replay(s, script.slice(0, open > 0 ? lastStart + open : lastStart))
  await ctx.sessions.flush(s)
  const path = persistence.locate(s.header).path
  return { root, path, text: readFileSync(path, 'utf8') }
}

/** A reader app (no live session) over a fresh root holding `text` as s1.jsonl. */
function readerOf(text: string | Buffer) {
  const app = makeApp()
  mkdirSync(app.root, { recursive: true })
  const path = join(app.root, 's1.jsonl')
  writeFileSync(path, text)
  return { ...app, path }
}

/** `text` with one character of line `lineNumber` (1-based) replaced: the first digit of its seq. */
function damageLine(text: string, lineNumber: number): string {
  const lines = text.split('\n')
  const line = lines[lineNumber - 1]!
  const at = line.indexOf('"seq"') + 2
  lines[lineNumber - 1] = line.slice(0, at) + (line[at] === 'x' ? 'y' : 'x') + line.slice(at + 1)
  return lines.join('\n')
}

describe('line checksums', () => {
  it("each line's crc is the CRC-32 of every byte of the file before its digits", async () => {
    const { text } = await sealedLog(1, 4)
    const bytes = Buffer.from(text)
    let start = 0
    let lines = 0
    for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a, start)) {
      const line = bytes.toString('utf8', start, newline)
      const match = /,"crc":"([0-9a-f]{8})"\}$/.exec(line)
      expect(match, `line ${lines + 1}`).not.toBeNull()
      const hexStart = newline - 10
      expect(crc32(bytes.subarray(0, hexStart)).toString(16).padStart(8, '0'), `line ${lines + 1}`).toBe(match![1])
      start = newline + 1
      lines++
    }
    expect(lines).toBeGreaterThan(20)
    expect(sealLog(text)).toBe(text)
  })

  it('damage in the committed region is a corruption error naming the file and the line', async () => {
    const { text } = await sealedLog(2, 5)
    const { persistence, path } = readerOf(damageLine(text, 5))
    for (const op of [() => persistence.inspect('s1'), () => persistence.load('s1')]) {
      const error = await rejection(op())
      expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
      expect(error.message).toBe('corrupt session log: checksum mismatch in committed event at line 5')
      expect(error.path).toBe(path)
      expect(error.line).toBe(5)
    }
  })

  it('a damaged header is corruption, never a foreign version', async () => {
    const { text } = await sealedLog(1, 0)
    // "version":0 -> "version":1 is a single bit; without the checksum it would read as a log from a newer harness.
    const { persistence, path } = readerOf(text.replace('"version":0', '"version":1'))
    const error = await rejection(persistence.inspect('s1'))
    expect(error).not.toBeInstanceOf(SessionFormatUnsupportedError)
    expect(error).toMatchObject({ message: 'corrupt session log: checksum mismatch in the header line', path, line: 1 })
    // The header's seal field renamed: the header reads as an old one, but its lines are sealed.
    const renamed = readerOf(text.replace('"crc":', '"crb":'))
    expect(await rejection(renamed.persistence.inspect('s1'))).toMatchObject({
      message: 'corrupt session log: checksum mismatch in the header line',
      line: 1,
    })
  })

  it('a damaged line in the open last turn is dropped with every later event, and reported', async () => {
    const warnings = captureWarnings()
    const { text } = await sealedLog(1, 10)
    const total = text.split('\n').length - 1
    const { events } = completeLines(Buffer.from(text))
    const lastTurnEnd = events.findLastIndex((e) => e.type === 'turn/end')
    const damagedLine = lastTurnEnd + 2 + 3 // the third line after turn/end's (turn/start is the first)
    const { persistence, path } = readerOf(damageLine(text, damagedLine))
    const report = {
      location: { kind: 'jsonl', path },
      firstLine: damagedLine,
      lastLine: total,
      droppedLines: total - damagedLine + 1,
      droppedEvents: total - damagedLine,
      fragmentBytes: 0,
      defect: { line: damagedLine, reason: 'checksum mismatch' },
    }
    expect((await persistence.inspect('s1')).recovery).toEqual(report)
    const loaded = await persistence.load('s1')
    expect(loaded.recovery).toEqual(report)
    expect(loaded.events.slice(0, damagedLine - 2)).toEqual(events.slice(0, damagedLine - 2))
    expect(loaded.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'interrupted' } } })
    expect(warnings).toEqual([
      `session-jsonl: session "s1": discarded lines ${damagedLine}–${total} of "${path}" (${total - damagedLine + 1} complete lines, starting at damaged line ${damagedLine} (checksum mismatch), of which ${total - damagedLine} were intact events)`,
    ])
    // The repaired file is sealed end to end: closers continue the chain.
    unsealed(readFileSync(path, 'utf8'))
    expect((await persistence.load('s1')).recovery).toBeUndefined()
  })

  it('resume appends sealed lines that continue the chain, across repairs and reloads', async () => {
    const { text } = await sealedLog(1, 6)
    const { ctx, persistence, path } = readerOf(text + '{"type":"assistant/ch')
    const session = await persistence.resume('s1')
    replay(session, scriptedAppends(3).slice(session.events.length, session.events.length + 5))
    await ctx.sessions.flush(session)
    const stored = readFileSync(path, 'utf8')
    unsealed(stored)
    expect((await makeApp({}, undefined, persistence.root).persistence.inspect('s1')).events).toHaveLength(
      session.events.length,
    )
  })
})

describe('logs written before checksums', () => {
  it('load as before, report a torn tail, and keep their plain format when resumed', async () => {
    const warnings = captureWarnings()
    const original = readFileSync(legacyFixture, 'utf8') // written by the session-jsonl build before checksums
    expect(original).not.toContain('"crc"')
    const stored = original
      .split('\n')
      .slice(1, -1)
      .map((line) => JSON.parse(line))
    const { ctx, persistence, root } = makeApp()
    mkdirSync(root, { recursive: true })
    const path = join(root, 'legacy.jsonl')
    const torn = '{"type":"assistant/chunk","seq":'
    writeFileSync(path, original + torn)
    const inspected = await persistence.inspect('legacy')
    expect(inspected.meta).toMatchObject({ id: 'legacy', cwd: '/work/legacy' })
    expect(inspected.events.slice(0, stored.length)).toEqual(stored)
    expect(inspected.events.at(-1)).toMatchObject({
      type: 'turn/end',
      data: { turn: 3, reason: { kind: 'interrupted' } },
    })
    expect(inspected.recovery).toEqual({
      location: { kind: 'jsonl', path },
      firstLine: stored.length + 2,
      lastLine: stored.length + 2,
      droppedLines: 0,
      droppedEvents: 0,
      fragmentBytes: torn.length,
    })

    const session = await persistence.resume('legacy')
    expect(warnings).toEqual([
      `session-jsonl: session "legacy": discarded line ${stored.length + 2} of "${path}" (a ${torn.length}-byte unterminated line)`,
    ])
    session.append('turn/start', { turn: 4 })
    session.append('turn/end', { turn: 4, reason: { kind: 'completed' } })
    await ctx.sessions.flush(session)
    const text = readFileSync(path, 'utf8')
    expect(text.startsWith(original)).toBe(true)
    expect(text).not.toContain('"crc"') // a file never mixes plain and sealed lines
    const reread = await makeApp({}, undefined, root).persistence.inspect('legacy')
    expect(reread.events).toEqual(session.events)
    expect(reread.recovery).toBeUndefined()
  })

  it('a sealed line in a log whose header has no seal means the header lost it', async () => {
    const { text } = await sealedLog(1, 2)
    const [header, ...rest] = text.split('\n')
    const { persistence } = readerOf(header!.replace(/,"crc":"[0-9a-f]{8}"\}$/, '}') + '\n' + rest.join('\n'))
    expect(await rejection(persistence.inspect('s1'))).toMatchObject({
      message: 'corrupt session log: checksum mismatch in the header line',
      line: 1,
    })
  })
})

describe('byte flips never load as altered content', () => {
  const seed = 20_261_201
  it(`fast-check (seed ${seed}): a named corruption error, or a reported discard that keeps only original events`, async () => {
    const warnings = captureWarnings()
    const figures = await flipProbe({ seed, numRuns: 250, warnings })
    expect(figures.runs).toBe(250)
    expect(figures.corruptionErrors).toBeGreaterThan(100)
    expect(figures.reportedDiscards).toBeGreaterThan(5)
  }, 120_000)
})
