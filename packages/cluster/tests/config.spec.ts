import { describe, expect, it } from 'vitest'
import { Config, interruptionOf } from '../src/index.js'
import { clusterNames } from '../src/names.js'

describe('the worker config', () => {
  it('has defaults, and names the field of a bad value', () => {
    expect(Config(undefined)).toMatchObject({
      queueSchema: 'bridle_queue',
      queue: 'bridle-sessions',
      concurrency: 2,
      handoverSeconds: 10,
      lingerMs: 250,
      agent: {},
    })
    expect(() => Config({ concurrency: 0 })).toThrow(/^cluster: invalid config: concurrency: /)
    expect(() => Config({ queueSchema: 'Bad-Name' })).toThrow(
      /^cluster: invalid config: queueSchema: expected a lower-case SQL identifier/,
    )
    expect(() => Config({ agent: { temperature: 1 } })).toThrow(/^cluster: invalid config: agent: /)
    expect(() => Config({ colour: 'red' })).toThrow(/^cluster: invalid config: /)
  })

  it('derives channel names that fit PostgreSQL identifiers and differ per schema and queue', () => {
    const a = clusterNames('bridle', 'bridle_queue', 'bridle-sessions')
    const b = clusterNames('bridle', 'bridle_queue', 'other')
    expect(a.jobsChannel).not.toBe(b.jobsChannel)
    expect(a.writtenChannel).toBe(b.writtenChannel)
    expect(a.jobsChannel.length).toBeLessThanOrEqual(63)
    expect(() => clusterNames('Bridle', 'q', 'x')).toThrow(
      'cluster: the session schema must be a lower-case SQL identifier, got "Bridle"',
    )
  })
})

/** A log built by hand, seq by seq. */
const log = (...events: [string, unknown][]) =>
  events.map(([type, data], seq) => ({
    type,
    seq,
    time: 0,
    data,
    ...(type.endsWith('message') || type === 'tool/result' ? { surfaceOp: 'append' } : {}),
  })) as never

const user = (id: string) => ({ id, role: 'user', content: [{ type: 'text', text: id }], source: { kind: 'user' } })

describe('what an interrupted turn left undone', () => {
  it('nothing when the last turn completed, or was cancelled by a user', () => {
    const done = log(['turn/start', { turn: 1 }], ['turn/end', { turn: 1, reason: { kind: 'completed' } }])
    expect(interruptionOf(done)).toBeUndefined()
    const cancelled = log(
      ['turn/start', { turn: 1 }],
      ['turn/end', { turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } }],
    )
    expect(interruptionOf(cancelled)).toBeUndefined()
  })

  it('a claimed prompt that never entered goes back; an entered one that the model did not answer asks for a continuation', () => {
    const claimedOnly = log(
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [user('m1')] }],
      ['turn/start', { turn: 1 }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
      ['turn/end', { turn: 1, reason: { kind: 'interrupted' } }],
    )
    expect(interruptionOf(claimedOnly)).toEqual({
      unentered: [{ target: 'next-turn', message: user('m1') }],
      owesAnswer: false,
    })
    const entered = log(
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [user('m1')] }],
      ['turn/start', { turn: 1 }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
      ['step/start', { turn: 1, step: 1 }],
      ['user/message', user('m1')],
      ['step/end', { turn: 1, step: 1 }],
      ['turn/end', { turn: 1, reason: { kind: 'interrupted' } }],
    )
    expect(interruptionOf(entered)).toEqual({ unentered: [], owesAnswer: true })
  })
})
