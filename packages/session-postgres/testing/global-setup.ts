/**
 * vitest globalSetup: one throwaway PostgreSQL server per test run, shared by every project that lists this setup
 * (through `globalThis`, since each project loads its setup files separately), stopped when the last of them tears
 * down. Tests read its connection string with `inject('pgUrl')`; `BRIDLE_TEST_PG_URL` uses an external server.
 */
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
// @ts-expect-error: a plain .mjs helper without type declarations
import { startServer } from './pg-server.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string
  }
}

interface Shared {
  refs: number
  server: Promise<{ url: string; stop(): Promise<void> }>
}

const KEY = Symbol.for('bridle.test-postgres-server')

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as { [KEY]?: Shared }
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
