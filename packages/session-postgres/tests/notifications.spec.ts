import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { NotificationListener } from '../src/notifications.js'
import type { PoolLike } from '../src/database.js'

/** A checked-out client as pg gives one: an emitter whose `query` a test scripts; `released` records the release. */
class FakeClient extends EventEmitter {
  released: Error | boolean | undefined
  unlisten: () => Promise<unknown> = async () => undefined
  async query(text: string): Promise<unknown> {
    return text.startsWith('UNLISTEN') ? this.unlisten() : undefined
  }
  release(error?: Error | boolean): void {
    this.released = error ?? false
  }
}

const poolOf = (client: FakeClient) => ({ connect: async () => client }) as unknown as PoolLike
const nothing = () => undefined
/** A listener on `client`'s pool that ignores payloads, reconnects and warnings. */
const listenerOn = (client: FakeClient) => new NotificationListener(poolOf(client), 'ch', nothing, nothing, nothing)

describe('NotificationListener.close', () => {
  it('a connection the server drops during UNLISTEN is destroyed, not an unhandled error event', async () => {
    const client = new FakeClient()
    const listener = listenerOn(client)
    await listener.start()
    // pg emits 'error' on the client from its socket's handler, then rejects the running query
    client.unlisten = () =>
      new Promise((_, reject) =>
        setImmediate(() => {
          const error = new Error('terminating connection due to administrator command')
          client.emit('error', error)
          reject(error)
        }),
      )
    await expect(listener.close()).resolves.toBeUndefined()
    expect(client.released).toBe(true)
    expect(client.listenerCount('error')).toBe(0)
  })

  it('a clean close gives the connection back to the pool with no listener of its own left on it', async () => {
    const client = new FakeClient()
    const listener = listenerOn(client)
    await listener.start()
    await listener.close()
    expect(client.released).toBe(false)
    expect(client.listenerCount('error') + client.listenerCount('end') + client.listenerCount('notification')).toBe(0)
  })
})
