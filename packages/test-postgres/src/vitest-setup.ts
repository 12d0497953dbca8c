/**
 * vitest globalSetup: one throwaway PostgreSQL server per test run, shared by every project that lists this setup
 * (through `globalThis`, since each project loads its setup files separately), stopped when the last of them tears
 * down. Tests read its connection string with `inject('pgUrl')`; `BRIDLE_TEST_PG_URL` uses an external server.
 */
import type { TestProject } from 'vitest/node'
import { startServer, type TestServer } from './server.js'

const KEY = Symbol.for('bridle.test-postgres-server')

interface Shared {
  refs: number
  server: Promise<TestServer>
}

declare module 'vitest' {
  interface ProvidedContext {
    pgUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as unknown as Record<symbol, Shared | undefined>
  const shared = (holder[KEY] ??= { refs: 0, server: startServer() })
  shared.refs++
  const server = await shared.server
  project.provide('pgUrl', server.url)
  return async () => {
    if (--shared.refs > 0) return
    delete holder[KEY]
    await server.stop()
  }
}
