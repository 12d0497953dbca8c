import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Session } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { nodeFs } from '../src/fs-layer.js'
import { IdChain } from '../src/id-chain.js'
import { LiveBinding } from '../src/live-binding.js'
import { tempRoot } from './helpers.js'

function binding() {
  const root = tempRoot()
  const session = Session.create('s1', undefined, { version: 0, id: 's1', createdAt: 1 })
  for (let turn = 1; turn <= 3; turn++) session.append('turn/start', { turn })
  const path = join(root, 's1.jsonl')
  const live = new LiveBinding(
    session,
    { path, meta: { version: 0, id: 's1', createdAt: 1 }, cursor: 0, materialized: false },
    {
      fs: nodeFs,
      root,
      chain: new IdChain(),
      delayMs: 1_000_000,
      warn: () => undefined,
    },
  )
  return { session, live, path }
}

describe('LiveBinding', () => {
  it('refuses a batch whose seqs do not continue the durable cursor', async () => {
    const { session, live } = binding()
    live.queue.push(session.events[1]!)
    await expect(live.flush()).rejects.toThrow('append seq mismatch for "s1": expected 0 at index 0, got 1')
  })

  it('admit fills gaps from the session and never queues a seq twice', async () => {
    const { session, live, path } = binding()
    live.admit(session.events[2]!)
    live.admit(session.events[0]!)
    live.admit(session.events[2]!)
    await live.flush()
    const seqs = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l).seq)
    expect(seqs).toEqual([0, 1, 2])
    expect(live.durableCount).toBe(3)
  })

  it('drops events that are already durable', async () => {
    const { session, live, path } = binding()
    live.admitAll()
    await live.flush()
    live.queue.push(session.events[0]!)
    await live.flush()
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(4)
  })
})
