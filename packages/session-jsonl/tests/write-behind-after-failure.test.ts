/**
 * After a failed flush the queue neither loses the batch nor writes on its own: automatic writing pauses until the
 * next event opens a fresh window (which carries the retained batch with it) or a flush retries at once. An event
 * admitted while the failing flush was writing must not start a background write behind the caller's back.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { WriteBehindQueue } from '../src/write-behind.js'

function gatedQueue(delayMs: number) {
  const batches: number[][] = []
  const gates: { resolve: () => void; reject: (e: unknown) => void }[] = []
  const failures: unknown[] = []
  const queue = new WriteBehindQueue<number>({
    delayMs,
    write: (batch) => {
      batches.push([...batch])
      return new Promise<void>((resolve, reject) => gates.push({ resolve, reject }))
    },
    onBackgroundFailure: (e) => failures.push(e),
  })
  return { queue, batches, gates, failures }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('after a failed flush', () => {
  it('the next event opens a fresh window that writes the retained batch with it', async () => {
    const q = gatedQueue(100)
    q.queue.push(0)
    const flushed = q.queue.flush()
    await vi.advanceTimersByTimeAsync(0)
    q.gates[0]!.reject(new Error('ENOSPC'))
    await expect(flushed).rejects.toThrow('ENOSPC')
    await vi.advanceTimersByTimeAsync(1000)
    expect(q.batches).toEqual([[0]]) // paused: no retry on its own
    q.queue.push(1)
    await vi.advanceTimersByTimeAsync(99)
    expect(q.batches).toEqual([[0]])
    await vi.advanceTimersByTimeAsync(1)
    expect(q.batches).toEqual([[0], [0, 1]])
    q.gates[1]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(q.queue.idle).toBe(true)
    expect(q.failures).toEqual([]) // a flush failure is the caller's, never reported as a background one
  })

  it('an event admitted while the failing flush wrote stays queued; nothing writes until the next event or flush', async () => {
    const q = gatedQueue(100)
    q.queue.push(0)
    const flushed = q.queue.flush()
    await vi.advanceTimersByTimeAsync(0)
    q.queue.push(1) // joins the barrier; its window must not outlive the failure
    q.gates[0]!.reject(new Error('EIO'))
    await expect(flushed).rejects.toThrow('EIO')
    expect(q.queue.pendingCount).toBe(2)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(q.batches).toEqual([[0]])
    const retry = q.queue.flush()
    await vi.advanceTimersByTimeAsync(0)
    expect(q.batches).toEqual([[0], [0, 1]])
    q.gates[1]!.resolve()
    await retry
    expect(q.queue.idle).toBe(true)
  })
})
