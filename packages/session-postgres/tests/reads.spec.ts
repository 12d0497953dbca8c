import { scriptedLog } from '@bridle/persistence-conformance'
import { SessionPersistenceCorruptionError, type SessionEvent } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { admin, captureWarnings, makeApp, storedSeqs } from './helpers.js'
import { insertStored, prepareSchema } from './stored.js'

const log = scriptedLog(2)
const bodies = log.map((event) => JSON.stringify(event))
const firstTurnEnd = log.findIndex((e) => e.type === 'turn/end')
const header = (id: string) => ({ id, createdAt: 1000 })

async function stored(bodiesOf: readonly string[], seqs?: number[]) {
  const app = makeApp()
  await prepareSchema(app.schema)
  await insertStored(app.schema, header('s1'), bodiesOf, { seqs })
  return app
}

describe('rows that are damaged (a hand edit, a restore gone wrong)', () => {
  it('an unparsable row inside the committed region is corruption naming the seq and where the session lives', async () => {
    const damaged = [...bodies]
    damaged[2] = damaged[2]!.slice(0, 10)
    const { persistence } = await stored(damaged)
    for (const op of [() => persistence.inspect('s1'), () => persistence.load('s1'), () => persistence.prepare('s1')]) {
      const error = (await op().catch((e: unknown) => e)) as SessionPersistenceCorruptionError
      expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
      expect(error.message).toBe('corrupt session log: unparsable committed event at seq 2')
      expect(error.path).toBe(persistence.locate({ version: 0, id: 's1', createdAt: 1000 } as never).path)
    }
  })

  it('a missing row inside the committed region is a seq gap', async () => {
    const seqs = bodies.map((_, i) => i)
    const { persistence } = await stored(
      bodies.filter((_, i) => i !== 3),
      seqs.filter((s) => s !== 3),
    )
    await expect(persistence.load('s1')).rejects.toThrow(
      'corrupt session log: seq gap in committed region at seq 4 (expected 3, got 4)',
    )
  })

  it('damage after the last turn/end is a discarded tail: load deletes it, closes the turn, and reports what it dropped', async () => {
    const warnings = captureWarnings()
    const kept = bodies.slice(0, firstTurnEnd + 4)
    const app = await stored([...kept, '{"torn', bodies[firstTurnEnd + 5]!])
    const inspected = await app.persistence.inspect('s1')
    expect(inspected.events.slice(0, kept.length)).toEqual(log.slice(0, kept.length))
    expect(inspected.events.at(-1)).toMatchObject({
      type: 'turn/end',
      data: { turn: 2, reason: { kind: 'interrupted' } },
    })
    expect(await storedSeqs(app.schema, 's1')).toHaveLength(kept.length + 2) // inspect never writes
    const path = app.persistence.locate({ version: 0, id: 's1', createdAt: 1000 } as never).path
    // numbered as the lines of readRaw's rendering: the header row is line 1, the row at seq n is line n + 2
    const report = {
      location: { kind: 'postgres', path },
      firstLine: kept.length + 2,
      lastLine: kept.length + 3,
      droppedLines: 2,
      droppedEvents: 1,
      fragmentBytes: 0,
      defect: { line: kept.length + 2, reason: `unparsable row at seq ${kept.length}` },
    }
    expect(inspected.recovery).toEqual(report)
    expect(warnings).toEqual([])
    const loaded = await app.persistence.load('s1')
    expect(loaded.events).toEqual(inspected.events)
    expect(loaded.recovery).toEqual(report)
    expect(warnings).toEqual([
      `session-postgres: session "s1": discarded 2 rows of "${path}" past the committed region, starting at a damaged row (unparsable row at seq ${kept.length}); 1 of them was an intact event`,
    ])
    const again = await app.persistence.load('s1')
    expect(again.recovery).toBeUndefined()
    expect(warnings).toHaveLength(1)
    expect(await storedSeqs(app.schema, 's1')).toEqual(loaded.events.map((e) => e.seq))
    const { rows } = await admin.query(`SELECT body FROM "${app.schema}".events WHERE session_id = 's1' ORDER BY seq`)
    expect(rows.map((r: { body: string }) => JSON.parse(r.body))).toEqual(JSON.parse(JSON.stringify(loaded.events)))
  })

  it('a missing row in the open last turn is a discarded tail too, reported as a seq gap', async () => {
    const warnings = captureWarnings()
    const kept = bodies.slice(0, firstTurnEnd + 3)
    const seqs = [...kept.map((_, i) => i), kept.length + 1, kept.length + 2]
    const app = await stored([...kept, bodies[kept.length + 1]!, bodies[kept.length + 2]!], seqs)
    const { recovery } = await app.persistence.inspect('s1')
    expect(recovery).toMatchObject({
      firstLine: kept.length + 2,
      lastLine: kept.length + 3,
      droppedLines: 2,
      droppedEvents: 2,
      fragmentBytes: 0,
      defect: {
        line: kept.length + 2,
        reason: `seq gap at seq ${kept.length + 1} (expected ${kept.length}, got ${kept.length + 1})`,
      },
    })
    const loaded = await app.persistence.load('s1')
    expect(loaded.recovery).toEqual(recovery)
    expect(loaded.events.slice(0, kept.length)).toEqual(log.slice(0, kept.length))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('discarded 2 rows')
    expect(warnings[0]).toContain('2 of them were intact events')
  })

  it('an intact log, even with an open turn to close, has no recovery report', async () => {
    const app = await stored(bodies.slice(0, firstTurnEnd + 3))
    expect((await app.persistence.inspect('s1')).recovery).toBeUndefined()
    expect((await app.persistence.load('s1')).recovery).toBeUndefined()
  })

  it('a stored header with an invalid field is corruption', async () => {
    const app = makeApp()
    await prepareSchema(app.schema)
    await admin.query(
      `INSERT INTO "${app.schema}".sessions (id, format_version, created_at, cwd) VALUES ('h', 0, 1, 'relative')`,
    )
    const error = (await app.persistence.inspect('h').catch((e: unknown) => e)) as Error
    expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
    expect(error.message).toBe('corrupt session record: the stored header field cwd is invalid')
  })
})

describe('readRaw', () => {
  it('renders the stored session as JSONL text: the header line, then every row, damaged ones included', async () => {
    const { persistence } = await stored([bodies[0]!, '{"torn'])
    const raw = await persistence.readRaw('s1')
    expect(raw).toEqual({
      header: { version: 0, id: 's1', createdAt: 1000 },
      fileName: 's1.jsonl',
      content: `{"type":"session","version":0,"id":"s1","createdAt":1000}\n${bodies[0]}\n{"torn\n`,
    })
    expect(await persistence.readRaw('nope')).toBeUndefined()
  })
})

describe('summary(id)', () => {
  it('is the summaries() entry of that session, read alone; undefined when absent or refused', async () => {
    const app = makeApp()
    await prepareSchema(app.schema)
    await insertStored(app.schema, header('s1'), bodies)
    await insertStored(app.schema, header('s2'), bodies.slice(0, firstTurnEnd + 1))
    await insertStored(app.schema, { id: 'bad', createdAt: 1000, cwd: 'relative' }, bodies)
    const warnings = captureWarnings()
    const all = await app.persistence.summaries()
    expect(all.map((row) => row.meta.id)).toEqual(['s1', 's2'])
    for (const row of all) expect(await app.persistence.summary(row.meta.id)).toEqual(row)
    expect((await app.persistence.summary('s2'))?.turns).toBe(1)
    expect(await app.persistence.summary('nope')).toBeUndefined()
    expect(await app.persistence.summary('bad')).toBeUndefined()
    // once from summaries(), once from summary('bad')
    const refused = expect.stringMatching(/skipping "[^"]*#bad": .*the stored header field cwd is invalid$/)
    expect(warnings).toEqual([refused, refused])
  })
})

describe('follow', () => {
  it('yields the committed events from a seq on, as another app writes them, until aborted', async () => {
    const writer = makeApp({ writeBatchMaxDelayMs: 1 })
    const s = writer.ctx.sessions.create('s1')
    s.append('turn/start', { turn: 1 })
    await writer.ctx.sessions.flush(s)
    const reader = makeApp({}, writer.schema)
    const abort = new AbortController()
    const seen: SessionEvent[] = []
    const done = (async () => {
      for await (const event of reader.persistence.follow('s1', { signal: abort.signal, intervalMs: 10 })) {
        seen.push(event)
        if (seen.length === 4) abort.abort()
      }
    })()
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(1)
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    s.append('turn/start', { turn: 2 })
    s.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
    await done
    expect(seen).toEqual(s.events)
    const from2: SessionEvent[] = []
    const again = new AbortController()
    for await (const event of reader.persistence.follow('s1', { from: 2, signal: again.signal, intervalMs: 10 })) {
      from2.push(event)
      if (from2.length === 2) again.abort()
    }
    expect(from2).toEqual(s.events.slice(2))
  })

  it('rejects for an absent session', async () => {
    const { persistence } = makeApp()
    const iterate = async () => {
      for await (const _ of persistence.follow('ghost')) void _
    }
    await expect(iterate()).rejects.toThrow('session "ghost" not found')
  })
})
