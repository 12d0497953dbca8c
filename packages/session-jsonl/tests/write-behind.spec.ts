import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WriteBehindQueue } from '../src/write-behind.js'

interface Harness {
  queue: WriteBehindQueue<number>
  batches: number[][]
  written: number[]
  failures: unknown[]
  /** Each write waits on a gate we control, so tests decide when writes settle. */
  gates: { resolve: () => void; reject: (e: unknown) => void }[]
}

function harness(delayMs = 200, manual = false): Harness {
  const h: Harness = { batches: [], written: [], failures: [], gates: [], queue: undefined as never }
  h.queue = new WriteBehindQueue<number>({
    delayMs,
    write: (batch) => {
      h.batches.push([...batch])
      if (!manual) {
        h.written.push(...batch)
        return Promise.resolve()
      }
      return new Promise<void>((resolve, reject) => {
        h.gates.push({
          resolve: () => {
            h.written.push(...batch)
            resolve()
          },
          reject,
        })
      })
    },
    onBackgroundFailure: (e) => h.failures.push(e),
  })
  return h
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('WriteBehindQueue window', () => {
  it('arms one fixed window on the first event; later events do not extend it', async () => {
    const h = harness(200)
    h.queue.push(0)
    await vi.advanceTimersByTimeAsync(150)
    h.queue.push(1)
    await vi.advanceTimersByTimeAsync(49)
    expect(h.batches).toEqual([])
    h.queue.push(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.batches).toEqual([[0, 1, 2]])
  })

  it('a steady stream never postpones the deadline (P4)', async () => {
    const h = harness(100)
    for (let t = 0; t < 1000; t += 10) {
      h.queue.push(t)
      await vi.advanceTimersByTimeAsync(10)
    }
    expect(h.batches).toHaveLength(10)
    for (const batch of h.batches) expect(batch).toHaveLength(10)
  })

  it('an expired window waits for the active write, then starts at once', async () => {
    const h = harness(100, true)
    h.queue.push(0)
    await vi.advanceTimersByTimeAsync(100)
    expect(h.batches).toEqual([[0]])
    h.queue.push(1)
    h.queue.push(2)
    await vi.advanceTimersByTimeAsync(100) // tail window expires while [0] is in flight
    expect(h.batches).toHaveLength(1)
    h.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.batches).toEqual([[0], [1, 2]])
    h.gates[1]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.written).toEqual([0, 1, 2])
  })

  it('a tail window that has not expired keeps its own timer', async () => {
    const h = harness(100, true)
    h.queue.push(0)
    await vi.advanceTimersByTimeAsync(100)
    await vi.advanceTimersByTimeAsync(50)
    h.queue.push(1)
    h.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.batches).toEqual([[0]])
    await vi.advanceTimersByTimeAsync(99)
    expect(h.batches).toEqual([[0]])
    await vi.advanceTimersByTimeAsync(1)
    expect(h.batches).toEqual([[0], [1]])
  })

  it('a failed background batch is retained, warned once, and resumes with the next event', async () => {
    const h = harness(100, true)
    h.queue.push(0)
    h.queue.push(1)
    await vi.advanceTimersByTimeAsync(100)
    h.gates[0]!.reject(new Error('disk full'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.failures.map(String)).toEqual(['Error: disk full'])
    expect(h.queue.pendingCount).toBe(2)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(h.batches).toHaveLength(1) // automatic retry paused
    h.queue.push(2)
    await vi.advanceTimersByTimeAsync(99)
    expect(h.batches).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(h.batches[1]).toEqual([0, 1, 2])
  })
})

describe('WriteBehindQueue flush barrier', () => {
  it('drains everything at once and cancels the window', async () => {
    const h = harness(100)
    h.queue.push(0)
    h.queue.push(1)
    await h.queue.flush()
    expect(h.batches).toEqual([[0, 1]])
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.batches).toEqual([[0, 1]])
    expect(h.queue.idle).toBe(true)
  })

  it('concurrent callers share one barrier, which includes events admitted while it runs', async () => {
    const h = harness(100, true)
    h.queue.push(0)
    const a = h.queue.flush()
    const b = h.queue.flush()
    expect(a).toBe(b)
    await vi.advanceTimersByTimeAsync(0)
    h.queue.push(1)
    h.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.batches).toEqual([[0], [1]])
    h.gates[1]!.resolve()
    await a
    expect(h.written).toEqual([0, 1])
  })

  it('waits for an overlapping background write before writing', async () => {
    const h = harness(100, true)
    h.queue.push(0)
    await vi.advanceTimersByTimeAsync(100)
    h.queue.push(1)
    const done = h.queue.flush()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.batches).toEqual([[0]])
    h.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.batches).toEqual([[0], [1]])
    h.gates[1]!.resolve()
    await done
  })

  it('retries a failed overlapping background batch at once', async () => {
    const h = harness(100, true)
    h.queue.push(0)
    await vi.advanceTimersByTimeAsync(100)
    const done = h.queue.flush()
    h.gates[0]!.reject(new Error('EIO'))
    await vi.advanceTimersByTimeAsync(0)
    expect(h.batches).toEqual([[0], [0]])
    h.gates[1]!.resolve()
    await done
    expect(h.written).toEqual([0])
  })

  it('rejects with the failure, keeps the batch queued, and the next flush retries', async () => {
    const h = harness(100, true)
    h.queue.push(0)
    const first = h.queue.flush()
    await vi.advanceTimersByTimeAsync(0)
    h.gates[0]!.reject(new Error('fsync failed'))
    await expect(first).rejects.toThrow('fsync failed')
    expect(h.queue.pendingCount).toBe(1)
    const second = h.queue.flush()
    expect(second).not.toBe(first)
    await vi.advanceTimersByTimeAsync(0)
    h.gates[1]!.resolve()
    await second
    expect(h.written).toEqual([0])
  })

  it('an event appended after the barrier resolves starts a new window', async () => {
    const h = harness(100)
    h.queue.push(0)
    await h.queue.flush()
    h.queue.push(1)
    await vi.advanceTimersByTimeAsync(99)
    expect(h.batches).toEqual([[0]])
    await vi.advanceTimersByTimeAsync(1)
    expect(h.batches).toEqual([[0], [1]])
  })

  it('flushing an empty queue writes nothing', async () => {
    const h = harness(100)
    await h.queue.flush()
    expect(h.batches).toEqual([])
  })
})

describe('WriteBehindQueue invariants (property)', () => {
  it('any interleaving of pushes, timer ticks, flushes and failures writes each item exactly once, in order', async () => {
    const action = fc.oneof(
      fc.constant({ kind: 'push' as const }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 150 }) }),
      fc.constant({ kind: 'flush' as const }),
      fc.constant({ kind: 'settle-ok' as const }),
      fc.constant({ kind: 'settle-fail' as const }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 60 }), async (actions) => {
        const h = harness(100, true)
        let next = 0
        const flushes: Promise<void>[] = []
        for (const a of actions) {
          if (a.kind === 'push') h.queue.push(next++)
          else if (a.kind === 'tick') await vi.advanceTimersByTimeAsync(a.ms)
          else if (a.kind === 'flush') flushes.push(h.queue.flush().catch(() => undefined))
          else {
            const gate = h.gates.shift()
            if (gate) a.kind === 'settle-ok' ? gate.resolve() : gate.reject(new Error('x'))
            await vi.advanceTimersByTimeAsync(0)
          }
        }
        // Drain: settle every write successfully until the queue is idle.
        const final = h.queue.flush()
        for (let i = 0; i < 1000 && !h.queue.idle; i++) {
          h.gates.shift()?.resolve()
          await vi.advanceTimersByTimeAsync(200)
        }
        await final
        await Promise.all(flushes)
        expect(h.written).toEqual(Array.from({ length: next }, (_, i) => i))
        // Batches are contiguous ranges.
        for (const batch of h.batches) batch.forEach((v, i) => i > 0 && expect(v).toBe(batch[i - 1]! + 1))
      }),
      { numRuns: 150 },
    )
  })
})
