/**
 * The backend-independent persistence rules (`@bridle/persistence-conformance`), run against session-jsonl. The
 * store is a fresh temp root; stored sessions are written as JSONL files; faults come from a real filesystem layer
 * that fails the planned fsync.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describePersistenceContract, type PersistenceDriver } from '@bridle/persistence-conformance'
import type { Context } from 'cordis'
import { encodeSegment, eventLine, headerLine, teardownsSettled } from '../src/index.js'
import { FaultyFs } from './fixtures/faulty-fs.js'
import { jsonlPlugin, tempRoot } from './helpers.js'

interface JsonlStore {
  readonly root: string
  readonly fs: FaultyFs
}

const fileOf = (store: JsonlStore, id: string) => join(store.root, `${encodeSegment(id)}.jsonl`)

const driver: PersistenceDriver<JsonlStore> = {
  name: 'session-jsonl',
  newStore: () => ({ root: tempRoot(), fs: new FaultyFs() }),
  load(ctx: Context, store, config = {}) {
    const fork = ctx.plugin(jsonlPlugin(store.fs), { root: store.root, ...config } as never)
    const persistence = ctx.get('sessionPersistence') as never
    return {
      persistence,
      stop: async () => {
        fork.dispose()
        await teardownsSettled(store.root)
      },
    }
  },
  async writeStored(store, header, events) {
    mkdirSync(store.root, { recursive: true })
    writeFileSync(fileOf(store, header.id), headerLine(header) + events.map((e) => eventLine(e as never)).join(''))
  },
  async writeForeignVersion(store, id, version) {
    mkdirSync(store.root, { recursive: true })
    writeFileSync(fileOf(store, id), JSON.stringify({ version, id }) + '\n')
  },
  async storedSeqs(store, id) {
    const path = fileOf(store, id)
    if (!existsSync(path)) return []
    return readFileSync(path, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => JSON.parse(line).seq as number)
  },
  async failNextWrite(store, id) {
    const file = encodeSegment(id).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    store.fs.plan({ op: 'sync', path: new RegExp(`/${file}\\.jsonl`) })
    return /injected sync failure/
  },
  collisionMessage: (id) =>
    `session "${id}" already has a persisted log on disk that does not match this live session (id collision)`,
  existingMessage: (id) => `session "${id}" already has a persisted log on disk; load/resume it instead of creating`,
}

describePersistenceContract(driver)
