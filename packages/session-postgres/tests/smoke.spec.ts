import { describe, expect, it } from 'vitest'
import { makeApp, storedSeqs } from './helpers.js'

describe('smoke', () => {
  it('writes, reads back, resumes in another app', async () => {
    const a = makeApp()
    const s = a.ctx.sessions.create('s1', { meta: { cwd: '/w' } })
    s.append('turn/start', { turn: 1 })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await a.ctx.sessions.flush(s)
    expect(await storedSeqs(a.schema, 's1')).toEqual([0, 1])
    const b = makeApp({}, a.schema)
    expect((await b.persistence.inspect('s1')).events).toEqual(s.events)
    await expect(b.persistence.resume('s1')).rejects.toThrow(/is leased by/)
    await a.stop()
    const resumed = await b.persistence.resume('s1')
    resumed.append('turn/start', { turn: 2 })
    await b.ctx.sessions.flush(resumed)
    expect(await storedSeqs(a.schema, 's1')).toEqual([0, 1, 2, 3])
  })
})
