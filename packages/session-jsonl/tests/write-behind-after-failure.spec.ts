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

/** A queue whose first background batch, `[0]`, failed with EIO. */
async function failedFirstBatch() {
  const q = gatedQueue(100)
  q.queue.push(0)
  await vi.advanceTimersByTimeAsync(100)
  q.gates[0]!.reject(new Error('EIO'))
  await vi.advanceTimersByTimeAsync(0)
  return q
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

describe('who writes what, and when the queue is idle', () => {
  it('idle only when nothing is queued, armed, writing or flushing; a window armed during a flush keeps it busy', async () => {
    const q = gatedQueue(100)
    expect(q.queue.idle).toBe(true)
    q.queue.push(0)
    expect(q.queue.idle).toBe(false) // queued, window armed
    const flushed = q.queue.flush()
    await vi.advanceTimersByTimeAsync(0)
    expect(q.queue.idle).toBe(false) // writing, barrier open
    q.queue.push(1) // arms a window while the barrier writes
    q.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    q.gates[1]!.resolve()
    await flushed
    expect(q.batches).toEqual([[0], [1]])
    expect(q.queue.pendingCount).toBe(0)
    expect(q.queue.idle).toBe(false) // nothing queued, but the window armed during the flush still runs
    await vi.advanceTimersByTimeAsync(100)
    expect(q.batches).toEqual([[0], [1]]) // an expiring window with nothing queued writes no empty batch
    expect(q.queue.idle).toBe(true)
  })

  it('a flush of an empty queue is not idle until its promise settles', async () => {
    const q = gatedQueue(100)
    const flushed = q.queue.flush()
    expect(q.queue.idle).toBe(false) // a caller that checks right away must still await the flush
    await flushed
    expect(q.queue.idle).toBe(true)
    expect(q.batches).toEqual([])
  })

  it('a flush that wrote every event leaves no window armed, even for events admitted while it waited', async () => {
    const q = gatedQueue(100)
    q.queue.push(0)
    await vi.advanceTimersByTimeAsync(100) // background write [0] starts and holds
    q.queue.push(1) // opens a window
    const flushed = q.queue.flush() // cancels that window and waits for the background write
    q.queue.push(2) // queued behind 1: the flush will write it, so no window of its own
    q.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(q.batches).toEqual([[0], [1, 2]])
    q.gates[1]!.resolve()
    await flushed
    expect(q.queue.pendingCount).toBe(0)
    expect(q.queue.idle).toBe(true) // process exit has nothing to wait for
    await vi.advanceTimersByTimeAsync(1000)
    expect(q.batches).toEqual([[0], [1, 2]])
  })

  it('an event joins a window still armed from a flush; the event after that gets a full window of its own', async () => {
    const q = gatedQueue(100)
    q.queue.push(0)
    const flushed = q.queue.flush()
    q.queue.push(1) // arms a window (ends at 100) while the flush writes [0]
    q.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    q.gates[1]!.resolve()
    await flushed
    expect(q.batches).toEqual([[0], [1]])
    await vi.advanceTimersByTimeAsync(50)
    q.queue.push(2) // joins the window armed during the flush
    await vi.advanceTimersByTimeAsync(50)
    expect(q.batches).toEqual([[0], [1], [2]])
    q.gates[2]!.resolve()
    await vi.advanceTimersByTimeAsync(20)
    q.queue.push(3) // a new window: written 100 ms from now, not earlier
    await vi.advanceTimersByTimeAsync(99)
    expect(q.batches).toEqual([[0], [1], [2]])
    await vi.advanceTimersByTimeAsync(1)
    expect(q.batches).toEqual([[0], [1], [2], [3]])
  })

  it('a failed background batch leaves the queue busy (it still holds the batch)', async () => {
    const q = await failedFirstBatch()
    expect(q.failures.map(String)).toEqual(['Error: EIO'])
    expect(q.queue.idle).toBe(false)
  })

  it('events admitted while a flush waits for a background write are written by the flush, which owns their failure', async () => {
    const q = gatedQueue(100)
    q.queue.push(0)
    await vi.advanceTimersByTimeAsync(100) // background write [0] starts
    const flushed = q.queue.flush()
    flushed.catch(() => undefined)
    q.queue.push(1) // arms a window that expires while the flush waits
    await vi.advanceTimersByTimeAsync(100)
    q.gates[0]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(q.batches).toEqual([[0], [1]])
    q.gates[1]!.reject(new Error('EIO'))
    await expect(flushed).rejects.toThrow('EIO')
    expect(q.failures).toEqual([]) // not reported as a background failure
    expect(q.queue.pendingCount).toBe(1)
  })
})

describe('after a failed background batch', () => {
  it('writing resumes with ordinary windows: one per idle start, never shortened by an earlier event', async () => {
    const q = await failedFirstBatch()
    expect(q.failures).toHaveLength(1)
    q.queue.push(1) // resumes: opens a window
    await vi.advanceTimersByTimeAsync(50)
    q.queue.push(2) // joins that window
    await vi.advanceTimersByTimeAsync(50)
    expect(q.batches).toEqual([[0], [0, 1, 2]])
    q.gates[1]!.resolve()
    await vi.advanceTimersByTimeAsync(20)
    q.queue.push(3) // the queue is idle again: a full window of its own
    await vi.advanceTimersByTimeAsync(99)
    expect(q.batches).toEqual([[0], [0, 1, 2]])
    await vi.advanceTimersByTimeAsync(1)
    expect(q.batches).toEqual([[0], [0, 1, 2], [3]])
    q.gates[2]!.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(q.queue.idle).toBe(true)
    expect(q.failures).toHaveLength(1)
  })
})
