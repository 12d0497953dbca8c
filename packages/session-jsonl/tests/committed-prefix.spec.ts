/**
 * What a reload keeps on disk. The committed prefix must end exactly after the last complete, valid line, whatever the
 * damage after it looks like (invalid UTF-8, a blank line, a fragment): a repair truncates the file there, so an
 * offset that is a few bytes short would cut into an event that was reported durable.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SessionPersistenceCorruptionError } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { eventLine, headerLine, parseHeader, scanEvents } from '../src/index.js'
import { buildLog } from './fixtures/script.js'
import { makeApp, scriptedAppends } from './helpers.js'

const enc = new TextEncoder()
const meta = { version: 0 as const, id: 's1', createdAt: 1000 }
const header = headerLine(meta)
const log = buildLog(scriptedAppends(2))
const lines = log.map(eventLine)
const firstTurnEnd = log.findIndex((e) => e.type === 'turn/end')
// a committed line holding multi-byte text, so character and byte offsets differ
const multiByte = log.findIndex((e) => e.type === 'user/message')

const bytesOf = (...parts: (string | number[])[]): Uint8Array => {
  const chunks = parts.map((part) => (typeof part === 'string' ? enc.encode(part) : Uint8Array.from(part)))
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

const scan = (bytes: Uint8Array) => scanEvents(bytes, parseHeader(bytes).headerEnd)
const byteLength = (text: string) => enc.encode(text).length

/** An event line whose JSON stays well-formed but carries `bytes` inside a string value (invalid UTF-8 there). */
const lineWithRawBytes = (seq: number, bytes: number[]): number[] => {
  const [before, after] = eventLine({ type: 'user/message', seq, time: 1, data: { text: '@@' } }).split('@@') as [
    string,
    string,
  ]
  return [...enc.encode(before), ...bytes, ...enc.encode(after)]
}

function writeLog(root: string, bytes: Uint8Array): string {
  mkdirSync(root, { recursive: true })
  const path = join(root, 's1.jsonl')
  writeFileSync(path, bytes)
  return path
}

describe('the committed prefix ends right after the last good line', () => {
  // Cut inside turn 1, after the multi-byte line: no turn/end follows, so the damage is torn tail.
  const kept = lines.slice(0, multiByte + 2)
  expect(firstTurnEnd).toBeGreaterThan(multiByte + 2)

  it.each<[string, number[]]>([
    ['a broken two-byte sequence', [0xc3, 0x28]],
    ['a lone continuation byte', [0x80]],
    ['a truncated three-byte sequence', [0xe2, 0x82]],
    ['an overlong encoding', [0xc0, 0xaf]],
  ])('when the next complete line holds %s', (_name, invalid) => {
    const bytes = bytesOf(header, ...kept, lineWithRawBytes(kept.length, invalid), '\n', lines[kept.length + 1]!)
    const result = scan(bytes)
    expect(result.events).toEqual(log.slice(0, kept.length))
    expect(result.committedBytes).toBe(byteLength(header + kept.join('')))
  })

  it('when every line is valid UTF-8 but the tail is a fragment', () => {
    const bytes = bytesOf(header, ...kept, lines[kept.length]!.slice(0, 7))
    expect(scan(bytes).committedBytes).toBe(byteLength(header + kept.join('')))
  })

  it('reloading such a file keeps every committed event and cuts exactly the damaged tail', async () => {
    const { root, persistence } = makeApp()
    const path = writeLog(
      root,
      bytesOf(header, ...kept, lineWithRawBytes(kept.length, [0xc3, 0x28]), lines.at(-1)!.slice(0, 9)),
    )
    const { events } = await persistence.load('s1')
    expect(events.slice(0, kept.length)).toEqual(log.slice(0, kept.length))
    expect(events.slice(kept.length).map((e) => e.type)).toEqual(['step/end', 'turn/end'])
    // the repaired file is the committed bytes, then the closers: not one byte of a committed line is lost
    expect(readFileSync(path, 'utf8')).toBe(header + events.map(eventLine).join(''))
  })
})

describe('invalid UTF-8 inside a committed line is damage, never a silently altered event', () => {
  it('inside a JSON string, before a later turn/end: corruption naming the line, nothing repaired', async () => {
    const victim = 2
    const bytes = bytesOf(
      header,
      ...lines.slice(0, victim),
      lineWithRawBytes(victim, [0xff]),
      '\n',
      ...lines.slice(victim + 1),
    )
    expect(() => scan(bytes)).toThrow(`corrupt session log: unparsable committed event at line ${victim + 2}`)
    expect(() => scan(bytes)).toThrow(expect.objectContaining({ name: 'CommittedDamage', line: victim + 2 }))
    const { root, persistence } = makeApp()
    const path = writeLog(root, bytes)
    await expect(persistence.load('s1')).rejects.toThrow(SessionPersistenceCorruptionError)
    expect(new Uint8Array(readFileSync(path))).toEqual(bytes)
  })

  it('inside a JSON string, with no turn/end after it: the line and what follows are torn tail', () => {
    const victim = 2
    const bytes = bytesOf(
      header,
      ...lines.slice(0, victim),
      lineWithRawBytes(victim, [0xe2, 0x28, 0xa1]),
      '\n',
      lines[victim + 1]!,
    )
    const result = scan(bytes)
    expect(result.events).toEqual(log.slice(0, victim))
    expect(result.committedBytes).toBe(byteLength(header + lines.slice(0, victim).join('')))
  })
})

describe('a blank line right after the header', () => {
  it('is corruption at line 2 when committed events follow (the log is never read as empty)', async () => {
    const bytes = bytesOf(header, '\n', ...lines)
    expect(() => scan(bytes)).toThrow('corrupt session log: unparsable committed event at line 2')
    // the same verdict when another line forces line-by-line decoding
    expect(() => scan(bytesOf(header, '\n', ...lines, [0xff], '\n'))).toThrow(
      'corrupt session log: unparsable committed event at line 2',
    )
    const { root, persistence } = makeApp()
    writeLog(root, bytes)
    await expect(persistence.inspect('s1')).rejects.toThrow('corrupt session log: unparsable committed event at line 2')
  })

  it('is torn tail when nothing committed follows: no events, committed bytes end at the header', () => {
    const bytes = bytesOf(header, '\n', lines[0]!)
    expect(scan(bytes)).toMatchObject({ events: [], committedBytes: byteLength(header) })
  })
})
